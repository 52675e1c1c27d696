/**
 * Code mode's costs and savings, in one run (`npx tsx bench/codemode.ts`):
 * - per run: `code.run("return 1")` end to end, and its parts: stripping types (sucrase against
 *   typescript's transpileModule) and the engine (a fresh QuickJS runtime per run against a pooled
 *   runtime with a fresh context, and against one reused context);
 * - per call: N sequential `await tools.s.t()` in one run against N direct `board.callTool` calls, on
 *   an in-process responder over a memory pair (no server cost, so the bridge is what is measured);
 * - heap: 1,000 runs in a child process with --expose-gc (test/codemode/fixtures/heap-runs.ts);
 * - the 20-lookup task (test/codemode/fixtures/lookup-task.ts): tokens sent and model calls, plain tool
 *   calling against code mode, and the declarations' tokens against the JSON tool list.
 * - off the event loop (bench/lib/codemode-scale.ts): the host's event-loop delay during a busy loop, a
 *   memory bomb and 32 runs at once, RSS during and after the bomb, per-run overhead, worker against
 *   the old in-thread engine; tokens of a 20-lookup task on the >=150-tool catalog: eager, deferred,
 *   code mode with deferred.
 * The machine is shared: ratios within this run are what to read.
 */
import { execFileSync } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { encode } from "gpt-tokenizer";
import { newQuickJSWASMModule } from "quickjs-emscripten";
import { transform } from "sucrase";
import ts from "typescript";
import { codeMode, type Switchboard as SwitchboardType } from "../src/index.js";
import { PRELUDE } from "../src/codemode/prelude.js";
import { LOOKUP_CODE, runLookupTask, type TaskRun } from "../test/codemode/fixtures/lookup-task.js";
import { startCodeBoard } from "../test/codemode/fixtures/servers.js";
import { memoryPair, Switchboard } from "./lib/runtime.js";
import { machineLine, percentile, table } from "./lib/stats.js";
import { writeResult } from "./lib/results.js";
import { respond } from "./lib/memory-responder.js";
import { loopAndMemory, tokenTable } from "./lib/codemode-scale.js";

const RUNS = 300;
const CALLS = 2_000;

/**
 * The medians of `rounds` timings of `fn` (ms): wall time, and this process's CPU time. With 8 jobs on
 * 2 cores the wall time is mostly waiting for a core; the CPU time is what the work itself costs.
 */
async function median(rounds: number, fn: () => unknown): Promise<{ wall: number; cpu: number }> {
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const began = performance.now();
    const cpu = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(cpu);
    walls.push(performance.now() - began);
    cpus.push((used.user + used.system) / 1000);
  }
  const mid = (values: number[]) =>
    percentile(
      values.sort((a, b) => a - b),
      50,
    );
  return { wall: mid(walls), cpu: mid(cpus) };
}

/** Answers initialize, tools/list and tools/call with a small structured result. */

async function responderBoard(): Promise<SwitchboardType> {
  const board = new Switchboard({
    servers: {
      s: {
        transport: () => {
          const [clientSide, serverSide] = memoryPair();
          respond(serverSide, {
            tools: [{ name: "lookup", inputSchema: { type: "object", properties: { id: { type: "string" } } } }],
            result: { content: [{ type: "text", text: "{}" }], structuredContent: { id: "c1", revenue: 1000 } },
          });
          return clientSide;
        },
      },
    },
  });
  await board.start();
  await board.listTools();
  return board;
}

console.log(machineLine());
const rows: Record<string, string | number>[] = [];

// ---- per run --------------------------------------------------------------------------------------
const board = await responderBoard();
const code = codeMode(board);
for (let i = 0; i < 30; i++) await code.run("return 1;");
const runMs = await median(RUNS, () => code.run("return 1;"));
const stripSucraseMs = await median(RUNS, () => transform(`(async () => {\n${LOOKUP_CODE}\n})`, { transforms: ["typescript"], disableESTransforms: true }));
const stripTscMs = await median(RUNS, () => ts.transpileModule(`(async () => {\n${LOOKUP_CODE}\n})`, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }));
const qjs = await newQuickJSWASMModule();
const freshMs = await median(RUNS, () => {
  const runtime = qjs.newRuntime();
  const context = runtime.newContext();
  context.unwrapResult(context.evalCode(PRELUDE)).dispose();
  context.dispose();
  runtime.dispose();
});
const pooledRuntime = qjs.newRuntime();
const pooledMs = await median(RUNS, () => {
  const context = pooledRuntime.newContext();
  context.unwrapResult(context.evalCode(PRELUDE)).dispose();
  context.dispose();
});
pooledRuntime.dispose();
const perRun = (measure: string, value: { wall: number; cpu: number }, unit = "ms") => rows.push({ measure, cpu: value.cpu, wall: value.wall, unit });
perRun('code.run("return 1"), end to end', runMs);
perRun("strip types, sucrase (the 20-lookup code)", stripSucraseMs);
perRun("strip types, typescript transpileModule", stripTscMs);
perRun("engine: fresh runtime + context + prelude", freshMs);
perRun("engine: pooled runtime, fresh context + prelude", pooledMs);

// ---- per call -------------------------------------------------------------------------------------
const direct = async () => {
  for (let i = 0; i < CALLS; i++) await board.callTool("s__lookup", { id: "c1" });
};
await direct();
const perCall = (value: { wall: number; cpu: number }) => ({ wall: value.wall / CALLS, cpu: value.cpu / CALLS });
const directMs = perCall(await median(5, direct));
const loop = `let n = 0;\nfor (let i = 0; i < ${CALLS}; i++) { const r = await tools.s.lookup({ id: "c1" }); n += r.revenue; }\nreturn n;`;
const codeLoopMs = perCall(await median(5, () => code.run(loop)));
const bridgeMs = { wall: codeLoopMs.wall - directMs.wall, cpu: codeLoopMs.cpu - directMs.cpu };
const parallel = `return (await Promise.all(Array.from({ length: 200 }, () => tools.s.lookup({ id: "c1" })))).length;`;
const parallelMs = await median(20, () => code.run(parallel));
const directParallelMs = await median(20, () => Promise.all(Array.from({ length: 200 }, () => board.callTool("s__lookup", { id: "c1" }))));
const micro = (value: { wall: number; cpu: number }) => ({ wall: value.wall * 1000, cpu: value.cpu * 1000 });
perRun("direct board.callTool, sequential", micro(directMs), "µs/call");
perRun("tools.s.lookup() from code, sequential", micro(codeLoopMs), "µs/call");
perRun("bridge cost over a direct call", micro(bridgeMs), "µs/call");
perRun("200 calls at once from code (Promise.all), whole run", parallelMs);
perRun("200 direct calls at once", directParallelMs);

// ---- off the event loop: loop delay, memory, per-run overhead, worker against in-thread -------------
const scale = await loopAndMemory(board);
rows.push(...scale.rows);
await board.stop();

// ---- heap -----------------------------------------------------------------------------------------
const child = fileURLToPath(new URL("../test/codemode/fixtures/heap-runs.ts", import.meta.url));
const heap = JSON.parse(
  execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", child, "1000"], { encoding: "utf8" }).trim().split("\n").at(-1)!,
) as Record<string, number>;
const heapDeltaKiB = (heap.heapAfter - heap.heapBefore) / 1024;
rows.push({ measure: "heap after 1,000 runs minus before (after gc)", value: heapDeltaKiB, unit: "KiB" });
rows.push({ measure: "external memory after 1,000 runs minus before", value: (heap.externalAfter - heap.externalBefore) / 1024, unit: "KiB" });

// ---- the 20-lookup task ---------------------------------------------------------------------------
const { board: crm } = await startCodeBoard();
const runs: TaskRun[] = [];
for (const mode of ["one per turn", "all in one turn", "code mode"] as const) runs.push(await runLookupTask(crm, mode));
const declarations = await codeMode(crm).declarations();
const listed = JSON.stringify(
  (await crm.listTools()).map(({ name, description, inputSchema, outputSchema }) => ({ name, description, inputSchema, outputSchema })),
);
await crm.stop();
const [perTurn, oneTurn, codeRun] = runs as [TaskRun, TaskRun, TaskRun];
for (const run of runs)
  rows.push({ measure: `20 lookups, ${run.mode}: tokens sent / model calls`, value: run.tokensSent, unit: `tokens, ${run.modelCalls} calls` });
const declarationTokens = encode(declarations).length;
const catalogTokens = await tokenTable();
rows.push(...catalogTokens.rows);
const listTokens = encode(listed).length;
rows.push({ measure: "declarations vs the JSON tool list (crm + math)", value: declarationTokens, unit: `tokens vs ${listTokens}` });

console.log(
  table(
    ["measure", "CPU", "wall", "value", "unit"],
    rows.map((row) => [row.measure, row.cpu ?? "", row.wall ?? "", row.value ?? "", row.unit]),
  ),
);
const tokenRatio = codeRun.tokensSent / perTurn.tokensSent;
console.log(
  `per run ${runMs.cpu.toFixed(2)} ms CPU (${runMs.wall.toFixed(2)} wall; goal < 5); bridge ${(bridgeMs.cpu * 1000).toFixed(1)} µs/call CPU (${(bridgeMs.wall * 1000).toFixed(1)} wall; goal < 200); ` +
    `fresh ÷ pooled engine ${(freshMs.cpu / pooledMs.cpu).toFixed(2)}x CPU; sucrase ÷ tsc ${(stripSucraseMs.cpu / stripTscMs.cpu).toFixed(3)}x CPU; ` +
    `tokens code ÷ one-per-turn ${tokenRatio.toFixed(3)}, ÷ all-in-one-turn ${(codeRun.tokensSent / oneTurn.tokensSent).toFixed(3)}; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`,
);
const file = writeResult({
  bench: "codemode",
  title: "Code mode: per-run and per-call overhead, heap, and the 20-lookup task",
  method: `CPU time of this process (wall time beside it: the machine was shared), ${RUNS} runs per per-run reading (median), ${CALLS} sequential calls x 5 rounds (median) per per-call reading, 1,000 runs for the heap, one scripted agent run per mode`,
  rows,
  ratios: {},
  targets: {
    "codemode-run-ms": runMs.cpu,
    "codemode-call-ms": bridgeMs.cpu,
    "codemode-tokens": tokenRatio,
    ...scale.targets,
    ...catalogTokens.targets,
  },
});
console.log(`wrote ${file}`);
