/**
 * What checkpointing costs a durable agent run, in one run: the memory and file checkpointers against
 * no checkpointer. Two measures:
 * - a save of a 50-message run state (25 turns of a tool call and its ~400-character result) whose
 *   last turn is new, as each step's saves are: flushed (the save before a call is sent) and, for the
 *   file, unflushed (`sync: false`, the save of a call's result);
 * - a whole `runAgent` of 25 turns with one tool call each (51 messages at the end) over an in-process
 *   host and a scripted model, so the loop's own work is small: (time with a checkpointer - time
 *   without) / 25 is what checkpointing adds per step, with the saves a step really makes (before
 *   its calls are sent, after they end; coalesced).
 * The Redis checkpointer (`fleet.checkpointer()`, a private redis-server on a unix socket, see
 * test/helpers/redis.ts) is one Lua script per save with the whole state as its argument.
 * The file checkpointer appends what changed to a journal (see src/durable/file-checkpointer.ts): on
 * this disk the flush dominates, and a step flushes once.
 * Rounds interleave the variants; medians are kept. `npx tsx bench/durable.ts` (BENCH_DIST=1: dist/).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as Source from "../src/index.js";
import { redisFleet } from "../src/fleet/index.js";
import { startRedis } from "../test/helpers/redis.js";
import { wholeFileCheckpointer } from "./lib/whole-file-checkpointer.js";
import { describeMachine, machine, writeResult } from "./lib/results.js";
import { table } from "./lib/stats.js";

const lib = (process.env.BENCH_DIST ? await import(new URL("../dist/index.js", import.meta.url).href) : await import("../src/index.js")) as typeof Source;
const { runAgent, memoryCheckpointer, fileCheckpointer, RUN_STATE_KIND, RUN_STATE_VERSION } = lib;

const TURNS = 25;
const SAVES = 200;
const ROUNDS = 9;
const RESULT_TEXT = "x".repeat(400);

const started = machine();
const dir = mkdtempSync(join(tmpdir(), "bench-durable-"));
const redis = await startRedis();
const fleet = redisFleet({ url: redis.url }, `bench-durable-${Date.now()}`);
await fleet.ready();

/** user, then per turn an assistant tool call and its result: 1 + 2 * turns messages. */
function trace(turns: number): Source.TraceMessage[] {
  const messages: Source.TraceMessage[] = [{ role: "user", content: [{ type: "text", text: "Do the work." }] }];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({
      role: "assistant",
      content: [
        { type: "text", text: `step ${turn}` },
        { type: "tool_use", id: `call_${turn}`, name: "work", input: { n: turn } },
      ],
    });
    messages.push({
      role: "tool",
      content: [{ type: "tool_result", toolUseId: `call_${turn}`, content: [{ type: "text", text: RESULT_TEXT }], isError: false }],
    });
  }
  return messages;
}

const state: Source.RunState = {
  kind: RUN_STATE_KIND,
  version: RUN_STATE_VERSION,
  runId: "bench",
  status: "running",
  // 49 messages of 24 turns and the assistant's next answer: 50.
  messages: [...trace(24), { role: "assistant", content: [{ type: "text", text: "last" }] }],
  usage: { inputTokens: 1000, outputTokens: 100 },
  steps: [],
  createdAt: 0,
  updatedAt: 0,
};
const bytes = Buffer.byteLength(JSON.stringify(state));

type Variant = "none" | "memory" | "file" | "file, fsync: false" | "whole file" | "redis";
let runCount = 0;
const checkpointerOf = (variant: Variant): Source.Checkpointer | undefined =>
  variant === "memory"
    ? memoryCheckpointer()
    : variant === "redis"
      ? fleet.checkpointer()
      : variant === "none"
        ? undefined
        : variant === "whole file"
          ? wholeFileCheckpointer(join(dir, `runs-${runCount}`), memoryCheckpointer())
          : fileCheckpointer(join(dir, `runs-${runCount}`), { fsync: variant === "file" });

/** ms per save of the 50-message state, each with a new last turn (the first save, a whole state, not counted). */
async function saves(variant: Exclude<Variant, "none">, sync = true): Promise<number> {
  const checkpointer = checkpointerOf(variant)!;
  const runId = `save-${runCount++}`;
  const base = state.messages.slice(0, -2);
  const turnOf = (i: number): Source.RunState => ({
    ...state,
    runId,
    messages: [...base, { role: "assistant", content: [{ type: "text", text: `turn ${i}` }] }, { role: "user", content: [{ type: "text", text: `${i}` }] }],
  });
  await checkpointer.save(runId, turnOf(0), 0);
  const began = performance.now();
  for (let revision = 1; revision <= SAVES; revision++) await checkpointer.save(runId, turnOf(revision), revision, { sync });
  return (performance.now() - began) / SAVES;
}

function serialize(): number {
  const began = performance.now();
  for (let i = 0; i < SAVES; i++) JSON.stringify(state);
  return (performance.now() - began) / SAVES;
}

const host: Source.AgentHost = {
  listTools: async () => [{ name: "work", inputSchema: { type: "object" as const }, annotations: { readOnlyHint: false } }],
  callTool: async () => ({ content: [{ type: "text" as const, text: RESULT_TEXT }] }),
};
const model: Source.AgentModel = async ({ turn }) =>
  turn <= TURNS
    ? {
        message: {
          role: "assistant",
          content: [
            { type: "text", text: `step ${turn}` },
            { type: "tool_use", id: `call_${turn}`, name: "work", input: { n: turn } },
          ],
        },
      }
    : { message: { role: "assistant", content: [{ type: "text", text: "done" }] } };

/** ms for a run of TURNS tool turns and the answer. */
async function run(variant: Variant): Promise<{ ms: number; revision: number }> {
  const checkpointer = checkpointerOf(variant);
  const runId = `run-${runCount++}`;
  const began = performance.now();
  const result = await runAgent({ model, host, messages: "Do the work.", maxTurns: TURNS + 1, ...(checkpointer ? { checkpointer, runId } : {}) });
  const ms = performance.now() - began;
  if (result.stopReason !== "end" || result.messages.length !== 2 * TURNS + 2)
    throw new Error(`unexpected run: ${result.stopReason}, ${result.messages.length} messages`);
  return { ms, revision: checkpointer ? ((await checkpointer.load(runId))?.revision ?? 0) : 0 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const samples = {
  saveMemory: [] as number[],
  saveFile: [] as number[],
  saveFileLazy: [] as number[],
  saveWhole: [] as number[],
  saveNoSync: [] as number[],
  saveRedis: [] as number[],
  serialize: [] as number[],
  none: [] as number[],
  memory: [] as number[],
  file: [] as number[],
  noSync: [] as number[],
  whole: [] as number[],
  redis: [] as number[],
};
let revisions = 0;
await run("none");
await run("file");
for (let round = 0; round < ROUNDS; round++) {
  samples.saveMemory.push(await saves("memory"));
  samples.saveFile.push(await saves("file"));
  samples.saveFileLazy.push(await saves("file", false));
  samples.saveWhole.push(await saves("whole file"));
  samples.saveNoSync.push(await saves("file, fsync: false"));
  samples.saveRedis.push(await saves("redis"));
  samples.serialize.push(serialize());
  samples.none.push((await run("none")).ms);
  samples.memory.push((await run("memory")).ms);
  const file = await run("file");
  samples.file.push(file.ms);
  samples.noSync.push((await run("file, fsync: false")).ms);
  samples.whole.push((await run("whole file")).ms);
  samples.redis.push((await run("redis")).ms);
  revisions = file.revision;
}
rmSync(dir, { recursive: true, force: true });
await fleet.close();
await redis.stop();

const m = Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, median(values)])) as Record<keyof typeof samples, number>;
const perStep = {
  memory: (m.memory - m.none) / TURNS,
  file: (m.file - m.none) / TURNS,
  noSync: (m.noSync - m.none) / TURNS,
  whole: (m.whole - m.none) / TURNS,
  redis: (m.redis - m.none) / TURNS,
};
const r3 = (value: number) => Math.round(value * 1000) / 1000;
const messages = state.messages.length;
console.log(`${describeMachine(started)}\n${messages}-message state: ${bytes.toLocaleString("en-US")} bytes of JSON; ${TURNS}-turn run: ${revisions} saves\n`);
console.log(
  table(
    ["checkpointer", `save of a ${messages}-message state (ms)`, `added per step of a ${TURNS}-turn run (ms)`],
    [
      ["memory (JSON text)", r3(m.saveMemory), r3(perStep.memory)],
      ["file (journal append and flush; a step flushes once)", r3(m.saveFile), r3(perStep.file)],
      ["file, a save with sync: false (a call's result)", r3(m.saveFileLazy), "—"],
      ["file, fsync: false (survives the process, not a power cut)", r3(m.saveNoSync), r3(perStep.noSync)],
      ["file as before: whole state, temp file, flush, rename, directory flush", r3(m.saveWhole), r3(perStep.whole)],
      ["redis (fleet.checkpointer(), one Lua script per save)", r3(m.saveRedis), r3(perStep.redis)],
      ["of which serializing the state", r3(m.serialize), "—"],
    ],
  ),
);
console.log(
  `\nrunAgent of ${TURNS} turns: ${r3(m.none)} ms without a checkpointer, ${r3(m.memory)} ms memory, ${r3(m.file)} ms file, ${r3(m.noSync)} ms file without flushes, ${r3(m.whole)} ms whole-state file, ${r3(m.redis)} ms redis (medians of ${ROUNDS} rounds)`,
);

writeResult(
  {
    bench: "durable",
    title: "Checkpoint cost of a durable run",
    method: `${SAVES} saves of a ${messages}-message state (${bytes} bytes) and ${TURNS}-turn runs, ${ROUNDS} interleaved rounds, medians`,
    rows: [
      { checkpointer: "memory", saveMs: r3(m.saveMemory), perStepMs: r3(perStep.memory) },
      {
        checkpointer: "file",
        saveMs: r3(m.saveFile),
        unflushedSaveMs: r3(m.saveFileLazy),
        perStepMs: r3(perStep.file),
        serializeMs: r3(m.serialize),
        savesPerRun: revisions,
      },
      { checkpointer: "file, fsync: false", saveMs: r3(m.saveNoSync), perStepMs: r3(perStep.noSync) },
      { checkpointer: "file, whole state (before the journal)", saveMs: r3(m.saveWhole), perStepMs: r3(perStep.whole) },
      { checkpointer: "redis", saveMs: r3(m.saveRedis), perStepMs: r3(perStep.redis) },
    ],
    ratios: { "file-step-journal-vs-whole": r3(perStep.file / perStep.whole) },
    targets: { "checkpoint-file-step-ms": perStep.file },
    chart: {
      title: `Checkpoint cost, ${messages}-message trace (lower is better)`,
      panels: [
        {
          title: "per step of a run",
          unit: "ms",
          groups: [
            {
              label: `${TURNS}-turn run`,
              values: {
                memory: r3(perStep.memory),
                file: r3(perStep.file),
                "file, fsync: false": r3(perStep.noSync),
                "file, whole state": r3(perStep.whole),
                redis: r3(perStep.redis),
              },
            },
          ],
          threshold: { value: 2, label: "goal: file < 2 ms" },
        },
        {
          title: "per save",
          unit: "ms",
          groups: [
            {
              label: `${messages}-message state`,
              values: { memory: r3(m.saveMemory), file: r3(m.saveFile), "file, fsync: false": r3(m.saveNoSync), redis: r3(m.saveRedis) },
            },
          ],
        },
      ],
    },
  },
  started,
);
