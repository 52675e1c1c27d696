/**
 * The baseline: the ratios and target readings of one chosen run (`npm run bench -- --save-baseline`),
 * kept in docs/bench/baseline.json, so a later run prints before and after for each and says whether
 * any ratio regressed. Every ratio in a results file is better when higher (see throughput-matrix.ts).
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { machine, RESULTS_DIR, type BenchResult, type Machine } from "./results.js";
import type { Readings } from "./targets.js";

const FILE = `${RESULTS_DIR}baseline.json`;

export interface Baseline {
  date: string;
  machine: Machine;
  /** "<bench>: <ratio key>" -> ratio */
  ratios: Record<string, number>;
  targets: Readings;
}

export interface Comparison {
  rows: { key: string; before: number; after: number; change: number }[];
  /** The ratio that fell most (after ÷ before), if any ratio is in both runs. */
  lowest?: { key: string; change: number };
}

export function readBaseline(): Baseline | undefined {
  return existsSync(FILE) ? (JSON.parse(readFileSync(FILE, "utf8")) as Baseline) : undefined;
}

export function saveBaseline(results: Map<string, BenchResult>): string {
  const baseline: Baseline = { date: new Date().toISOString(), machine: machine(), ratios: {}, targets: {} };
  for (const result of results.values()) {
    for (const [key, value] of Object.entries(result.ratios)) baseline.ratios[`${result.bench}: ${key}`] = value;
    Object.assign(baseline.targets, result.targets);
  }
  writeFileSync(FILE, `${JSON.stringify(baseline, null, 2)}\n`);
  return FILE;
}

export function compareWithBaseline(baseline: Baseline | undefined, results: Map<string, BenchResult>): Comparison {
  const rows: Comparison["rows"] = [];
  if (!baseline) return { rows };
  for (const result of results.values()) {
    for (const [key, after] of Object.entries(result.ratios)) {
      const full = `${result.bench}: ${key}`;
      const before = baseline.ratios[full];
      if (before !== undefined && before > 0) rows.push({ key: full, before, after, change: after / before });
    }
  }
  const lowest = rows.reduce<Comparison["rows"][number] | undefined>((low, row) => (!low || row.change < low.change ? row : low), undefined);
  return { rows, lowest: lowest && { key: lowest.key, change: lowest.change } };
}
