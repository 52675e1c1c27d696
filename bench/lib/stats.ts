/** Small helpers shared by the benchmarks: percentiles, formatting, a markdown table. */
import { percentile, runLoad } from "../../src/cli/load.js";
import { RUNTIME } from "./results.js";

export { percentile };
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

/** Runs `call` with `concurrency` workers until `total` calls are done; records each latency. A failed call fails the run. */
export async function drive(label: string, total: number, concurrency: number, call: (i: number) => Promise<unknown>): Promise<RunResult> {
  const load = await runLoad(total, concurrency, call);
  if (load.failures > 0) throw new Error(`${label}: ${load.failures} of ${total} calls failed`);
  return { label, requests: load.requests, seconds: load.seconds, latenciesMs: load.latenciesMs };
}

export function machineLine(): string {
  return `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${process.platform}/${process.arch}, ${RUNTIME}`;
}
