/**
 * What a benchmark leaves behind: `docs/bench/<bench>.json` with the machine, the date, its rows, its
 * ratios (compared with the baseline by run-all) and its target readings, plus the chart bench/charts.ts
 * draws from it.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import type { Readings } from "./targets.js";

export const RESULTS_DIR = fileURLToPath(new URL("../../docs/bench/", import.meta.url));

/** What bench/lib/runtime.ts loads: the compiled package (BENCH_DIST=1, as npm run bench does) or the source. */
export const RUNTIME = process.env.BENCH_DIST ? "dist (compiled)" : "src (through tsx)";

export interface Machine {
  cores: number;
  cpu: string;
  memoryGiB: number;
  platform: string;
  node: string;
  /** 1-minute load average when the benchmark started: how idle the machine was. */
  load1: number;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    platform: `${process.platform}/${process.arch}`,
    node: process.version,
    load1: Math.round(os.loadavg()[0] * 100) / 100,
  };
}

export function describeMachine(m: Machine): string {
  return `${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB, ${m.platform}, Node ${m.node}, load ${m.load1}`;
}

/** One bar chart: panels side by side (each with its own y axis), groups of bars per panel, one bar per series. */
export interface ChartSpec {
  title: string;
  /** What the groups along the x axis are (e.g. "server"). */
  xLabel?: string;
  panels: ChartPanel[];
}
export interface ChartPanel {
  title: string;
  /** The y axis label, with its unit. */
  unit: string;
  groups: { label: string; values: Record<string, number> }[];
  /** A dashed line across the panel (a target). */
  threshold?: { value: number; label: string };
}

export interface BenchResult {
  bench: string;
  title: string;
  /** How the numbers were taken, e.g. "20,000 calls per round, median of 3 rounds". */
  method: string;
  date: string;
  machine: Machine;
  /** The runtime measured: the compiled package or the TypeScript source through tsx. */
  runtime: string;
  /** Set by run-all, so it reads back only the results of its own run. */
  run?: string;
  rows: Record<string, string | number>[];
  /** Ratios that must not regress (run-all prints them against docs/bench/baseline.json). */
  ratios: Record<string, number>;
  /** Readings of the targets in bench/lib/targets.ts. */
  targets: Readings;
  chart?: ChartSpec;
}

export function writeResult(result: Omit<BenchResult, "date" | "machine" | "run" | "runtime">, started: Machine = machine()): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const full: BenchResult = { ...result, date: new Date().toISOString(), machine: started, runtime: RUNTIME, run: process.env.BENCH_RUN };
  const file = `${RESULTS_DIR}${result.bench}.json`;
  writeFileSync(file, `${JSON.stringify(full, null, 2)}\n`);
  return file;
}

export function readResult(bench: string): BenchResult | undefined {
  const file = `${RESULTS_DIR}${bench}.json`;
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as BenchResult) : undefined;
}
