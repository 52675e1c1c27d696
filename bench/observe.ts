/**
 * What the observer costs a Switchboard call: off (the default), on with no page open (the tap counts
 * every call; nothing is serialised), and on with a page open (an `/events` stream read in this process,
 * so the snapshot every second and its JSON are paid here, as a user's process pays them).
 *
 * Measured to survive a noisy shared machine: one board per server, the observer opened and closed on
 * it between windows, so the three modes differ by the observer alone; each round runs every mode for a
 * fixed time (OBSERVE_WINDOW_MS, default 1 s, so a page's 1 s tick falls inside its window) after a short
 * warm-up, in an order that rotates from round to round; each round gives a ratio of each mode to the
 * off window of the same round, and the result is the median of those ratios over OBSERVE_ROUNDS (default 9).
 * A slow spell of the machine hits both sides of a ratio, and one odd round moves no median.
 *
 * Two servers, as bench/telemetry-overhead.ts: an in-process responder over a memory pair (the client's
 * CPU per call, the worst case for any per-call cost) and the stdio raw responder. The goal: on with a
 * page open ≥ 0.95x of off at concurrency 64 (docs/guide/benchmarks.md, "Benchmarks").
 */
import { setImmediate } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { ECHO_ARGS } from "./lib/echo-clients.js";
import { MEMORY, respond, STDIO } from "./lib/memory-responder.js";
import type { Observer, ServerInit, Switchboard as Board } from "../src/index.js";
import { memoryPair, Switchboard } from "./lib/runtime.js";
import { machine, writeResult, type ChartSpec } from "./lib/results.js";
import { machineLine, table } from "./lib/stats.js";
import { round2 } from "./lib/throughput-matrix.js";

const ROUNDS = Number(process.env.OBSERVE_ROUNDS ?? 9);
const WINDOW_MS = Number(process.env.OBSERVE_WINDOW_MS ?? 1000);
const WARM_UP_MS = 200;
const CONCURRENCIES = [1, 64] as const;
const OFF = "observer off";
const NO_PAGE = "observer on, no page";
const PAGE = "observer on, page open";
const MODES = [OFF, NO_PAGE, PAGE] as const;
type Mode = (typeof MODES)[number];

/**
 * Reads a page's event stream until closed, as a browser tab would; counts the snapshots. `opened`
 * settles with the first snapshot: a window measures a page that is open, not one still connecting.
 */
function openPage(url: string): { opened: Promise<void>; close(): Promise<number> } {
  const controller = new AbortController();
  let frames = 0;
  let first: () => void = () => {};
  const opened = new Promise<void>((resolve) => (first = resolve));
  const reading = (async () => {
    const response = await fetch(new URL("events", url), { signal: controller.signal });
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      frames += countFrames(chunk);
      if (frames > 0) first();
    }
  })()
    .catch(() => {})
    .finally(first);
  return {
    opened,
    close: async () => {
      controller.abort();
      await reading;
      return frames;
    },
  };
}

function countFrames(chunk: Uint8Array): number {
  let count = 0;
  for (let i = 1; i < chunk.length; i++) if (chunk[i] === 10 && chunk[i - 1] === 10) count++;
  return count;
}

const rawResponder = fileURLToPath(new URL("../examples/servers/raw-responder.mjs", import.meta.url));

async function startBoard(server: string): Promise<Board> {
  let init: ServerInit;
  if (server === MEMORY) {
    const [client, serverSide] = memoryPair();
    respond(serverSide);
    init = { transport: () => client };
  } else {
    init = { command: process.execPath, args: [rawResponder] };
  }
  const board = new Switchboard({ servers: { s: init }, client: { protocol: "legacy" } });
  await board.start();
  return board;
}

interface Reading {
  /** Calls per second of wall time. */
  rate: number;
  /** This process's CPU time per call, µs (user + system): what a loaded machine's scheduler cannot blur. */
  cpuUs: number;
}

/**
 * Calls with `concurrency` workers for `ms`. The clock is read every 64 calls of a worker, and the worker
 * then yields to the event loop: an in-process responder answers in microtasks, so without it no timer
 * (the end of the window, a page's tick) would run until the load ended.
 */
async function load(board: Board, concurrency: number, ms: number): Promise<Reading> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const deadline = started + ms;
  let stop = false;
  let done = 0;
  const worker = async () => {
    for (let mine = 1; !stop; mine++) {
      await board.callTool("s__echo", ECHO_ARGS);
      done++;
      if ((mine & 63) === 0) {
        if (performance.now() >= deadline) stop = true;
        else await setImmediate();
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(cpu);
  return { rate: done / ((performance.now() - started) / 1000), cpuUs: (used.user + used.system) / done };
}

let pageFrames = 0;

/** One window of one mode: the observer (and page) opened first, closed after, outside the timing. */
async function measure(board: Board, mode: Mode, concurrency: number): Promise<Reading> {
  const observer = mode === OFF ? undefined : await board.observe({ port: 0 });
  const page = mode === PAGE && observer !== undefined ? openPage(observer.url) : undefined;
  await page?.opened;
  try {
    await load(board, concurrency, WARM_UP_MS);
    return await load(board, concurrency, WINDOW_MS);
  } finally {
    if (page !== undefined) pageFrames += await page.close();
    await observer?.close();
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const cellName = (server: string, concurrency: number) => `${server}, concurrency ${concurrency}`;

/** The three modes at each concurrency against both servers: the table, the JSON and the chart. */
async function throughput(): Promise<void> {
  const started = machine();
  const title = "Observer overhead, Switchboard (observer on ÷ off)";
  const method = `${ROUNDS} rounds of a ${WINDOW_MS} ms window per mode (after ${WARM_UP_MS} ms of warm-up), modes rotated each round, one board per server; median of the per-round ratios to off, by wall time and by this process's CPU time`;
  console.log(`\n## ${title} (${machineLine()}; load ${started.load1}; ${method})\n`);
  const rows: Record<string, string | number>[] = [];
  const ratios: Record<string, number> = {};
  const medians: Record<string, Record<Mode, number>> = {};
  for (const server of [MEMORY, STDIO]) {
    const board = await startBoard(server);
    try {
      for (const concurrency of CONCURRENCIES) {
        const rates: Record<Mode, number[]> = { [OFF]: [], [NO_PAGE]: [], [PAGE]: [] };
        const byRate: Record<Mode, number[]> = { [OFF]: [], [NO_PAGE]: [], [PAGE]: [] };
        const byCpu: Record<Mode, number[]> = { [OFF]: [], [NO_PAGE]: [], [PAGE]: [] };
        const cpus: Record<Mode, number[]> = { [OFF]: [], [NO_PAGE]: [], [PAGE]: [] };
        for (let round = 0; round < ROUNDS; round++) {
          const got = {} as Record<Mode, Reading>;
          for (let i = 0; i < MODES.length; i++) {
            const mode = MODES[(i + round) % MODES.length];
            got[mode] = await measure(board, mode, concurrency);
          }
          for (const mode of MODES) {
            rates[mode].push(got[mode].rate);
            cpus[mode].push(got[mode].cpuUs);
            byRate[mode].push(got[mode].rate / got[OFF].rate);
            byCpu[mode].push(got[OFF].cpuUs / got[mode].cpuUs);
          }
        }
        const cell = cellName(server, concurrency);
        medians[cell] = { [OFF]: median(rates[OFF]), [NO_PAGE]: median(rates[NO_PAGE]), [PAGE]: median(rates[PAGE]) };
        const spread = (values: number[]) => `${round2(Math.min(...values))}–${round2(Math.max(...values))}`;
        console.log(`### ${cell}\n`);
        console.log(
          table(
            ["mode", "req/s", "on ÷ off, req/s (min–max)", "CPU µs/call", "on ÷ off, calls per CPU s (min–max)"],
            MODES.map((mode) => [
              mode,
              medians[cell][mode],
              mode === OFF ? "—" : `${round2(median(byRate[mode]))}x (${spread(byRate[mode])})`,
              median(cpus[mode]),
              mode === OFF ? "—" : `${round2(median(byCpu[mode]))}x (${spread(byCpu[mode])})`,
            ]),
          ),
        );
        console.log();
        for (const mode of MODES) {
          rows.push({
            server,
            concurrency,
            client: mode,
            windows: ROUNDS,
            windowMs: WINDOW_MS,
            reqPerSec: Math.round(medians[cell][mode]),
            cpuUsPerCall: round2(median(cpus[mode])),
          });
          if (mode === OFF) continue;
          ratios[`${cell}: ${mode} ÷ ours`] = round2(median(byRate[mode]));
          ratios[`${cell}: ${mode} ÷ ours (calls per CPU second)`] = round2(median(byCpu[mode]));
        }
      }
    } finally {
      await board.stop();
    }
  }
  console.log(JSON.stringify({ bench: "observe", ...ratios }));
  const chart: ChartSpec = {
    title,
    xLabel: "server",
    panels: CONCURRENCIES.map((concurrency) => ({
      title: `concurrency ${concurrency}`,
      unit: "req/s",
      groups: [MEMORY, STDIO].map((server) => ({
        label: server,
        values: Object.fromEntries(MODES.map((mode) => [mode, Math.round(medians[cellName(server, concurrency)][mode])])),
      })),
    })),
  };
  writeResult(
    { bench: "observe", title, method, rows, ratios, targets: { "observer-page-c64": ratios[`${cellName(STDIO, 64)}: ${PAGE} ÷ ours`] }, chart },
    started,
  );
  console.log(`(the open pages received ${pageFrames} snapshots in all)`);
}

/**
 * The tap's own cost per call, away from any I/O, on both of the board's paths: the direct path (a call's
 * promise through the server's `direct()`, whose reaction an observer's tap wraps: `watch()`) and the
 * routed path (the tap's side reaction on the board's promise: `called()`). Each is an already-settled
 * promise awaited with and without the tap, by one caller and by 64 at once; this process's CPU time (a
 * loaded machine's scheduler does not add to it, as it does to wall time), the best of 7 runs each. "Before" is the direct path as it was until the tap wrapped the
 * runtime's reaction: `called()` on the promise `direct()` returns, a second reaction per call.
 */
async function tapCost(): Promise<{ costs: Record<string, Record<number, number>>; reads: Record<string, Record<number, number>>; snapshotUs: number }> {
  const instance = new Switchboard({ servers: { s: { command: process.execPath, args: ["-e", ""], disabled: true } } });
  const observer = (await instance.observe({ port: 0 })) as Observer;
  const tap = instance.callTap!;
  // The server's runtime, as the board's direct path calls it (src/switchboard/switchboard.ts, callTool).
  type Direct = { direct<T>(call: Promise<T>, tap?: unknown, name?: string, args?: unknown): Promise<T> };
  const runtime = (instance as unknown as { runtimes: Map<string, Direct> }).runtimes.get("s")!;
  const result = { content: [] };
  const variants: Record<string, () => Promise<unknown>> = {
    bare: () => Promise.resolve(result),
    direct: () => runtime.direct(Promise.resolve(result)),
    watched: () => runtime.direct(Promise.resolve(result), tap, "s__echo", ECHO_ARGS),
    before: () => tap.called("s__echo", ECHO_ARGS, runtime.direct(Promise.resolve(result))),
    called: () => tap.called("s__echo", ECHO_ARGS, Promise.resolve(result)),
  };
  const n = 200_000;
  const costs: Record<string, Record<number, number>> = {};
  for (let run = 0; run < 7; run++) {
    for (const concurrency of CONCURRENCIES) {
      for (const [name, call] of Object.entries(variants)) {
        let left = n;
        const cpu = process.cpuUsage();
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (left-- > 0) await call();
          }),
        );
        const used = process.cpuUsage(cpu);
        const ns = ((used.user + used.system) * 1000) / n;
        (costs[name] ??= {})[concurrency] = Math.round(Math.min(costs[name]?.[concurrency] ?? Infinity, ns));
      }
    }
  }
  // Clock reads per call, a count the machine's load cannot blur: the tap's clock (src/util/burst-clock.ts)
  // shares one read among the readings of a burst, and a read costs 100-150 ns on a loaded VM.
  const reads: Record<string, Record<number, number>> = {};
  const now = performance.now;
  let counted = 0;
  performance.now = () => (counted++, now.call(performance));
  try {
    for (const concurrency of CONCURRENCIES) {
      for (const name of ["watched", "before"]) {
        let left = (counted = 0) + n;
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (left-- > 0) await variants[name]();
          }),
        );
        (reads[name] ??= {})[concurrency] = counted / n;
      }
    }
  } finally {
    performance.now = now;
  }
  // What an open page costs per tick: the snapshot of a full ring of calls, as JSON, best of 7 runs of 200.
  let snapshot = Infinity;
  for (let run = 0; run < 7; run++) {
    const started = performance.now();
    for (let i = 0; i < 200; i++) JSON.stringify(observer.snapshot());
    snapshot = Math.min(snapshot, ((performance.now() - started) * 1000) / 200);
  }
  await observer.close();
  return { costs, reads, snapshotUs: Math.round(snapshot) };
}

/** Only the tap's cost (OBSERVE_TAP_ONLY=1): seconds instead of minutes, for working on the tap. */
async function printTapCost(): Promise<void> {
  const { costs, reads, snapshotUs } = await tapCost();
  const over = (tapped: string, untapped: string, concurrency: number) =>
    `${costs[tapped][concurrency] - costs[untapped][concurrency]} ns (${costs[untapped][concurrency]} untapped, ${costs[tapped][concurrency]} tapped)`;
  console.log(`\nThe tap alone, ns of CPU time per call (best of 7 runs of ${(200_000).toLocaleString("en")} calls, load ${machine().load1}):`);
  for (const concurrency of CONCURRENCIES) {
    console.log(
      `- direct path, concurrency ${concurrency}: ${over("watched", "direct", concurrency)}; with a second reaction as before: ${over("before", "direct", concurrency)}`,
    );
    console.log(`- routed path (called), concurrency ${concurrency}: ${over("called", "bare", concurrency)}`);
    console.log(`- clock reads per call, direct path, concurrency ${concurrency}: ${reads.watched[concurrency]}; before: ${reads.before[concurrency]}`);
  }
  console.log(`an open page's tick: ${snapshotUs} µs for the snapshot and its JSON, once a second (best of 7 runs of 200)`);
}

if (process.env.OBSERVE_TAP_ONLY !== "1") await throughput();
await printTapCost();
