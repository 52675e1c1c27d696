/** A closed-loop load generator: `concurrency` workers issue `total` calls and record each latency. */
export interface LoadResult {
  requests: number;
  failures: number;
  /** The first failure, to say what went wrong. */
  firstError?: unknown;
  seconds: number;
  /** Latency of every call, ms, in issue order. */
  latenciesMs: number[];
}

/** Counts settled calls while a load runs, for a progress display that polls it (no callback per call). */
export interface LoadProgress {
  done: number;
}

export async function runLoad(total: number, concurrency: number, call: (i: number) => Promise<unknown>, progress?: LoadProgress): Promise<LoadResult> {
  const latenciesMs = new Array<number>(total);
  let next = 0;
  let failures = 0;
  let firstError: unknown;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t0 = performance.now();
      try {
        await call(i);
      } catch (error) {
        if (failures++ === 0) firstError = error;
      }
      latenciesMs[i] = performance.now() - t0;
      if (progress) progress.done++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, worker));
  return { requests: total, failures, firstError, seconds: (performance.now() - started) / 1000, latenciesMs };
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}
