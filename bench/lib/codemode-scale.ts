/**
 * Code mode at scale, for bench/codemode.ts: the host's event-loop delay while a busy loop, a memory
 * bomb and 32 runs at once go on, in the worker pool against the old in-thread engine (kept here only,
 * over the process's shared, uncapped QuickJS module); the host's RSS peak and level after the bomb;
 * per-run overhead with one tool call, worker against in-thread; and the tokens of a 20-lookup task on
 * the >=150-tool catalog (test/catalog/: the real npm servers plus the synthetic one) three ways:
 * eager tool calling, deferred loading, and code mode with deferred loading.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { encode } from "gpt-tokenizer";
import { codeMode, runAgent, Switchboard, type AgentModel, type CodeMode } from "../../src/index.js";
import { bridge } from "../../src/codemode/bridge.js";
import { runInEngine, type EngineLimits } from "../../src/codemode/engine.js";
import { stripTypes } from "../../src/codemode/strip.js";
import { catalogServers } from "../../test/catalog/queries.js";
import { ScriptedServer } from "../../test/helpers/scripted-server.js";
import { percentile } from "./stats.js";

export type Row = Record<string, string | number>;

const LIMITS: EngineLimits = { timeoutMs: 2_000, memoryLimitBytes: 32 * 1024 * 1024, maxStackBytes: 256 * 1024, maxLogChars: 20_000 };
const BOMB = "const a = [];\nwhile (true) a.push(new Array(100000).fill(1));";
const MB = 1024 * 1024;

/** The old path: the engine on this thread, in the process's shared module, calls through the board. */
function inThread(board: Switchboard, limits: EngineLimits) {
  const index = new Map([["s", new Map([["lookup", "s__lookup"]])]]);
  return async (source: string) => {
    const stripped = stripTypes(source);
    if (!stripped.ok) throw new Error(stripped.message);
    const signal = new AbortController().signal;
    const hostCall = bridge({ board, index, signal, callOptions: undefined, events: undefined, calls: [] });
    return runInEngine(stripped.code, JSON.stringify({ s: ["lookup"] }), hostCall, limits, signal);
  };
}

/**
 * While `work` runs: the host's event-loop delay p99 (ms; the histogram records nothing while the loop is
 * blocked, so the longest gap between two 20 ms ticks is read too: a stall), and the RSS peak (MB).
 */
async function watched(work: () => Promise<unknown>): Promise<{ p99: number; stall: number; rssPeak: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  let rssPeak = process.memoryUsage.rss();
  let last = performance.now();
  let stall = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last - 20);
    last = now;
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  }, 20);
  histogram.enable();
  await work();
  histogram.disable();
  clearInterval(sampler);
  stall = Math.max(stall, performance.now() - last - 20);
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  return { p99: histogram.percentile(99) / 1e6, stall, rssPeak: rssPeak / MB };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500));

export async function loopAndMemory(board: Switchboard): Promise<{ rows: Row[]; targets: Record<string, number> }> {
  const rows: Row[] = [];
  const code = codeMode(board, { ...LIMITS, workers: 4 });
  const old = inThread(board, LIMITS);
  // Every worker up first: start-up is not what is measured.
  await Promise.all(Array.from({ length: 4 }, () => code.run("return 1;")));
  await old("return 1;");
  const row = (measure: string, value: number, unit: string) => rows.push({ measure, value, unit });

  const workerLoop = await watched(() => code.run("while (true) {}"));
  const threadLoop = await watched(() => old("while (true) {}"));
  row("event-loop delay p99, busy loop 2 s (worker)", workerLoop.p99, "ms");
  row("longest event-loop stall, busy loop 2 s: worker / in-thread", workerLoop.stall, `ms / ${threadLoop.stall.toFixed(0)} ms`);

  // The bomb in a worker first: the in-thread one keeps what it grew (the module is never shrunk).
  const rssBefore = process.memoryUsage.rss() / MB;
  const workerBomb = await watched(() => code.run(BOMB));
  await settle();
  const rssAfterWorker = process.memoryUsage.rss() / MB;
  const bombBegan = performance.now();
  const threadBomb = await watched(() => inThread(board, { ...LIMITS, timeoutMs: 15_000 })(BOMB));
  const threadBombMs = performance.now() - bombBegan;
  await settle();
  const rssAfterThread = process.memoryUsage.rss() / MB;
  row("event-loop delay p99, array bomb 32 MiB (worker)", workerBomb.p99, "ms");
  row("longest event-loop stall, array bomb: worker / in-thread", workerBomb.stall, `ms / ${threadBomb.stall.toFixed(0)} ms`);
  row(
    "host RSS growth at peak during the bomb: worker / in-thread",
    workerBomb.rssPeak - rssBefore,
    `MB / ${(threadBomb.rssPeak - rssAfterWorker).toFixed(0)} MB`,
  );
  row("host RSS after the bomb over before: worker / in-thread", rssAfterWorker - rssBefore, `MB / ${(rssAfterThread - rssAfterWorker).toFixed(0)} MB`);
  row("in-thread bomb: time to end", threadBombMs, "ms");

  const lookup = "return await tools.s.lookup({ id: 'c1' });";
  const many = await watched(() =>
    Promise.all(Array.from({ length: 32 }, () => code.run(`${lookup.replace("return ", "await ")}\n${lookup.replace("return ", "await ")}\n${lookup}`))),
  );
  row("event-loop delay p99 / longest stall, 32 runs x 3 calls at once (worker)", many.p99, `ms / ${many.stall.toFixed(0)} ms`);

  const timings = async (run: (source: string) => Promise<unknown>) => {
    const samples: number[] = [];
    for (let i = 0; i < 200; i++) {
      const began = performance.now();
      await run(lookup);
      samples.push(performance.now() - began);
    }
    samples.sort((a, b) => a - b);
    return { p50: percentile(samples, 50), p99: percentile(samples, 99) };
  };
  const worker = await timings((source) => code.run(source));
  const thread = await timings(old);
  row("per run, one tool call, p50: worker / in-thread", worker.p50, `ms / ${thread.p50.toFixed(2)} ms`);
  row("per run, one tool call, p99: worker / in-thread", worker.p99, `ms / ${thread.p99.toFixed(2)} ms`);
  return {
    rows,
    targets: {
      "codemode-loop-p99-ms": Math.max(workerLoop.p99, workerBomb.p99, many.p99),
      "codemode-bomb-rss-mb": workerBomb.rssPeak - rssBefore,
      "codemode-bomb-rss-after-mb": rssAfterWorker - rssBefore,
    },
  };
}

/** Every catalog server on one board, each tool answering "did <tool> <args>". */
async function catalogBoard(): Promise<Switchboard> {
  const entries = Object.fromEntries(
    Object.entries(catalogServers()).map(([name, tools]) => {
      const server = new ScriptedServer()
        .on("tools/list", () => ({ tools }))
        .on("tools/call", (request) => {
          const params = request.params as { name: string; arguments?: unknown };
          return { content: [{ type: "text", text: `did ${params.name} ${JSON.stringify(params.arguments ?? {})}` }] };
        });
      return [name, { transport: () => server.clientSide, protocol: "legacy" as const }];
    }),
  );
  const board = new Switchboard({ servers: entries });
  await board.start();
  return board;
}

type Way = "eager" | "deferred" | "code mode + deferred";
const IDS = Array.from({ length: 20 }, (_, i) => `cus_${i + 1}`);

/** One scripted run of the task: what the model is sent each call (tool definitions + messages), in tokens. */
async function tokensOf(board: Switchboard, way: Way): Promise<{ definitions: number; total: number; calls: number; tools: number }> {
  let definitions = 0;
  let total = 0;
  let calls = 0;
  let tools = 0;
  const model: AgentModel = async ({ tools: offered, messages, turn }) => {
    calls++;
    const defs = encode(JSON.stringify(offered.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })))).length;
    definitions += defs;
    total += defs + encode(JSON.stringify(messages)).length;
    if (turn === 1) tools = offered.length;
    const use = (id: string, name: string, input: Record<string, unknown>) => ({ type: "tool_use" as const, id, name, input });
    const lookups = IDS.map((id, i) => use(`l${i}`, "acme__get_customer", { id }));
    const search = [use("s", "search_tools", { query: "look up a customer by id" })];
    const program = `const ids = ${JSON.stringify(IDS)};\nconst all = await Promise.all(ids.map((id) => tools.acme.get_customer({ id })));\nreturn all.length;`;
    const plan: Record<Way, Array<ReturnType<typeof use>[] | undefined>> = {
      eager: [lookups],
      deferred: [search, lookups],
      "code mode + deferred": [search, [use("r", "run_code", { code: program })]],
    };
    const content = plan[way][turn - 1];
    return { message: { role: "assistant", content: content ?? [{ type: "text", text: "The 20 customers are looked up." }] } };
  };
  const codeOption = way === "code mode + deferred" ? { codeMode: { workers: 2 } } : {};
  await runAgent({ model, host: board, messages: "Look up these 20 customers.", ...(way === "eager" ? {} : { toolLoading: "deferred" }), ...codeOption });
  return { definitions, total, calls, tools };
}

export async function tokenTable(): Promise<{ rows: Row[]; targets: Record<string, number>; description: number }> {
  const board = await catalogBoard();
  const rows: Row[] = [];
  const results = new Map<Way, Awaited<ReturnType<typeof tokensOf>>>();
  for (const way of ["eager", "deferred", "code mode + deferred"] as const) results.set(way, await tokensOf(board, way));
  const code: CodeMode = codeMode(board);
  const description = (await code.tool()).description!.length;
  const declarations = (await code.declarations()).length;
  const toolCount = (await board.listTools()).length;
  await board.stop();
  const eager = results.get("eager")!;
  for (const [way, run] of results)
    rows.push({
      measure: `20 lookups on ${toolCount} tools, ${way}: definition / total tokens`,
      value: run.definitions,
      unit: `/ ${run.total} tokens (${(run.total / eager.total).toFixed(3)} of eager), ${run.calls} model calls, ${run.tools} tools on turn 1`,
    });
  rows.push({ measure: `run_code description on ${toolCount} tools (all declarations: ${declarations})`, value: description, unit: "characters" });
  const codeRun = results.get("code mode + deferred")!;
  return { rows, description, targets: { "codemode-deferred-token-ratio": codeRun.total / eager.total, "codemode-deferred-model-calls": codeRun.calls } };
}
