/**
 * The latency summary `mcp-switchboard bench` ends with: percentiles, and a histogram over 1-2-5
 * buckets (0.1, 0.2, 0.5, 1, 2, 5 ... ms), from the bucket of the fastest call to that of the slowest.
 */
import { percentile } from "./load.js";

export interface LatencySummary {
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Calls that took at most `leMs` (and more than the bucket before). */
export interface Bucket {
  leMs: number;
  count: number;
}

export function summariseLatency(sorted: readonly number[]): LatencySummary {
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    min: sorted[0] ?? NaN,
    mean: sorted.length > 0 ? sum / sorted.length : NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** The 1-2-5 bound at or above `ms` (0.01 ms at the least). */
function boundAbove(ms: number): number {
  let bound = 0.01;
  while (bound < ms) bound = nextBound(bound);
  return bound;
}

/** 1 -> 2 -> 5 -> 10 ... */
function nextBound(bound: number): number {
  const lead = Number(bound.toPrecision(1)) / 10 ** Math.floor(Math.log10(bound));
  return Number((bound * (lead === 2 ? 2.5 : 2)).toPrecision(6));
}

export function histogram(sorted: readonly number[]): Bucket[] {
  const first = sorted[0];
  if (first === undefined) return [];
  let last: Bucket = { leMs: boundAbove(first), count: 0 };
  const buckets: Bucket[] = [last];
  for (const value of sorted) {
    while (value > last.leMs) {
      last = { leMs: nextBound(last.leMs), count: 0 };
      buckets.push(last);
    }
    last.count++;
  }
  return buckets;
}

const WIDTH = 40;

export function renderHistogram(buckets: readonly Bucket[], summary: LatencySummary): string[] {
  const most = Math.max(1, ...buckets.map((b) => b.count));
  const total = buckets.reduce((sum, b) => sum + b.count, 0);
  const rows = buckets.map((b) => ({ b, label: `≤ ${b.leMs.toLocaleString("en-US", { maximumFractionDigits: 2 })} ms` }));
  const pad = Math.max(...rows.map((row) => row.label.length));
  const lines = [
    "latency",
    ...rows.map(
      ({ b, label }) =>
        `  ${label.padStart(pad)} ${bar(b.count, most).padEnd(WIDTH)} ${b.count.toLocaleString("en-US")} (${((100 * b.count) / total).toFixed(1)}%)`,
    ),
  ];
  lines.push(`  p50 ${formatMs(summary.p50)} ms   p90 ${formatMs(summary.p90)} ms   p99 ${formatMs(summary.p99)} ms   max ${formatMs(summary.max)} ms`);
  return lines;
}

/** Whole blocks, and one eighth-block for the remainder, so small buckets still show. */
function bar(count: number, most: number): string {
  if (count === 0) return "";
  const eighths = Math.max(1, Math.round((count / most) * WIDTH * 8));
  return "█".repeat(Math.floor(eighths / 8)) + (eighths % 8 === 0 ? "" : " ▏▎▍▌▋▊▉"[eighths % 8]);
}

export function formatMs(ms: number): string {
  if (ms >= 100) return Math.round(ms).toLocaleString("en-US");
  return ms.toFixed(ms >= 10 ? 1 : 2);
}
