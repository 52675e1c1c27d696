/** A closed-loop load generator: `concurrency` workers issue `total` calls and record each latency. */
export interface LoadResult {
  requests: number;
  failures: number;
  seconds: number;
  /** Latency of every call, ms, in issue order. */
  latenciesMs: number[];
}

export async function runLoad(total: number, concurrency: number, call: (i: number) => Promise<unknown>): Promise<LoadResult> {
  const latenciesMs = new Array<number>(total);
  let next = 0;
  let failures = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t0 = performance.now();
      try {
        await call(i);
      } catch {
        failures++;
      }
      latenciesMs[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, worker));
  return { requests: total, failures, seconds: (performance.now() - started) / 1000, latenciesMs };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}
