/**
 * `npm run bench`: every benchmark, each in its own Node process (with --expose-gc, so memory numbers
 * are honest and one benchmark's heap never skews the next), then every target (bench/lib/targets.ts) with its
 * reading and whether it is met, every ratio against the baseline (docs/bench/baseline.json), and the
 * charts. It measures the compiled package (it builds dist/ first, as users get it from npm); `--source`
 * measures the TypeScript source through tsx instead (see bench/lib/runtime.ts for how they differ).
 * Pass names to run a subset: `npm run bench -- stdio-throughput pending-memory`; `--save-baseline`
 * makes this run's ratios the baseline later runs are compared with.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { drawCharts } from "./charts.js";
import { compareWithBaseline, readBaseline, saveBaseline } from "./lib/baseline.js";
import { describeMachine, machine, readResult, RESULTS_DIR, type BenchResult } from "./lib/results.js";
import { table } from "./lib/stats.js";
import { formatReading, isMet, TARGETS, thresholdText } from "./lib/targets.js";

const ALL = [
  "pending-memory",
  "stdio-throughput",
  "http-throughput",
  "ws-throughput",
  "legacy-sse",
  "modern-throughput",
  "switchboard-scale",
  "many-servers",
  "telemetry-overhead",
  "fleet",
  "codemode",
  "catalog",
  "search-libraries",
  "durable",
  "observe",
  "gateway",
];

/**
 * Run only when named: ab-transports builds an older commit and compares stdio, WebSocket and the
 * Switchboard with it (minutes, and it needs the repository's history).
 */
const OPT_IN = ["ab-transports"];

const args = process.argv.slice(2);
const save = args.includes("--save-baseline");
const wanted = args.filter((arg) => !arg.startsWith("--"));
const names = wanted.length > 0 ? wanted : ALL;
const run = randomUUID();
const started = machine();
const source = args.includes("--source");
if (!source) {
  const build = spawnSync(process.execPath, [fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url)), "-p", "tsconfig.build.json"], {
    stdio: "inherit",
    cwd: fileURLToPath(new URL("..", import.meta.url)),
  });
  if (build.status !== 0) {
    console.error("npm run build failed: the benchmarks measure the compiled package (or pass --source)");
    process.exit(1);
  }
}
let failed = 0;
for (const name of names) {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  if (!existsSync(file)) {
    console.error(`No benchmark named ${name} (bench/${name}.ts); names: ${[...ALL, ...OPT_IN].join(", ")}`);
    failed++;
    continue;
  }
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", file], {
    stdio: "inherit",
    env: { ...process.env, BENCH_RUN: run, ...(source ? {} : { BENCH_DIST: "1" }) },
  });
  if (child.status !== 0) {
    console.error(`bench/${name}.ts failed (exit ${child.status ?? child.signal})`);
    failed++;
  }
}

// Every result file, this run's and earlier ones (marked with their date).
const results = new Map<string, BenchResult>();
for (const name of ALL) {
  const result = readResult(name);
  if (result) results.set(name, result);
}
const baseline = readBaseline();
const comparison = compareWithBaseline(baseline, results);

console.log(
  `\n## Issue #15 targets (${new Date().toISOString().slice(0, 10)}; ${describeMachine(started)}; ${source ? "src through tsx" : "dist, compiled"})\n`,
);
const rows = TARGETS.map((target) => {
  const result = results.get(target.bench);
  const value = target.bench === "run-all" ? comparison.lowest?.change : result?.targets[target.id];
  const before = baseline?.targets[target.id];
  const beforeText = before === undefined ? "—" : formatReading(target, before);
  if (value === undefined) {
    const why =
      target.bench === "run-all"
        ? baseline
          ? "no ratio in both runs"
          : "no baseline yet (--save-baseline)"
        : `not measured (npm run bench -- ${target.bench})`;
    return [target.what, beforeText, why, thresholdText(target), "—"];
  }
  const met = isMet(target, value);
  const earlier = result && result.run !== run && target.bench !== "run-all" ? ` (earlier run, ${result.date.slice(0, 10)})` : "";
  const lowest = target.bench === "run-all" && comparison.lowest ? ` (${comparison.lowest.key})` : "";
  return [
    target.what,
    beforeText,
    `${formatReading(target, value)}${earlier}${lowest}`,
    thresholdText(target),
    met === undefined ? "reading" : met ? "met" : "NOT met",
  ];
});
console.log(table(["target", "baseline", "measured", "threshold", "verdict"], rows));
writeFileSync(
  `${RESULTS_DIR}targets.json`,
  `${JSON.stringify({ date: new Date().toISOString(), machine: started, targets: TARGETS.map((t, i) => ({ ...t, baseline: rows[i][1], measured: rows[i][2], verdict: rows[i][4] })) }, null, 2)}\n`,
);

if (baseline) {
  console.log(`\n## Before (baseline of ${baseline.date.slice(0, 10)}) and after (now): every ratio, higher is better\n`);
  console.log(
    table(
      ["ratio", "before", "after", "after ÷ before"],
      comparison.rows.map((r) => [r.key, r.before.toFixed(2), r.after.toFixed(2), `${r.change.toFixed(2)}x`]),
    ),
  );
}
if (save) console.log(`\nBaseline saved: ${saveBaseline(results)}`);
const charts = drawCharts();
console.log(`\nResults and charts: ${charts.map((file) => file.slice(RESULTS_DIR.length)).join(", ")} in docs/bench/`);
process.exit(failed > 0 ? 1 : 0);
