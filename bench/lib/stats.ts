/** Small helpers shared by the benchmarks: percentiles, formatting, a markdown table. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export interface RunResult {
  label: string;
  requests: number;
  seconds: number;
  latenciesMs: number[];
}

export interface Row {
  label: string;
  reqPerSec: number;
  p50: number;
  p99: number;
}

export function summarise(run: RunResult): Row {
  const sorted = [...run.latenciesMs].sort((a, b) => a - b);
  return { label: run.label, reqPerSec: run.requests / run.seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const text = rows.map((row) => row.map((cell) => (typeof cell === "number" ? format(cell) : cell)));
  const lines = [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`];
  for (const row of text) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}

export function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return Math.round(value).toLocaleString("en-US");
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** Runs `call` with `concurrency` workers until `total` calls are done; records each latency. */
export async function drive(label: string, total: number, concurrency: number, call: (i: number) => Promise<unknown>): Promise<RunResult> {
  const latenciesMs = new Array<number>(total);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const t0 = performance.now();
      await call(i);
      latenciesMs[i] = performance.now() - t0;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { label, requests: total, seconds: (performance.now() - started) / 1000, latenciesMs };
}

export function machineLine(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${process.platform}/${process.arch}`;
}
