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
 * The tap's own CPU per call, away from any I/O, on both of the board's paths: the direct path (a call's
 * promise through the server's `direct()`, which an observer's tap wraps: `watch()`) and the routed path
 * (the tap's side reaction on the board's promise: `called()`). Each is an already-settled promise
 * awaited with and without the tap; the best of several runs each (the least disturbed by a shared machine).
 */
async function tapCost(): Promise<{ bareNs: number; directNs: number; watchedNs: number; calledNs: number; snapshotUs: number }> {
  const instance = new Switchboard({ servers: { s: { command: process.execPath, args: ["-e", ""], disabled: true } } });
  const observer = (await instance.observe({ port: 0 })) as Observer;
  const tap = instance.callTap!;
  // The server's runtime, as the board's direct path calls it (switchboard.ts callTool).
  const runtime = (
    instance as unknown as { runtimes: Map<string, { direct<T>(call: Promise<T>, tap?: unknown, name?: string, args?: unknown): Promise<T> }> }
  ).runtimes.get("s")!;
  const result = { content: [] };
  const n = 500_000;
  const best = { bare: Infinity, direct: Infinity, watched: Infinity, called: Infinity };
  const time = (key: keyof typeof best, started: number) => (best[key] = Math.min(best[key], ((performance.now() - started) * 1e6) / n));
  for (let run = 0; run < 7; run++) {
    let started = performance.now();
    for (let i = 0; i < n; i++) await Promise.resolve(result);
    time("bare", started);
    started = performance.now();
    for (let i = 0; i < n; i++) await runtime.direct(Promise.resolve(result));
    time("direct", started);
    started = performance.now();
    for (let i = 0; i < n; i++) await runtime.direct(Promise.resolve(result), tap, "s__echo", ECHO_ARGS);
    time("watched", started);
    started = performance.now();
    for (let i = 0; i < n; i++) await tap.called("s__echo", ECHO_ARGS, Promise.resolve(result));
    time("called", started);
  }
  // What an open page costs per tick: the snapshot of a full ring of calls, as JSON, best of 7 runs of 200.
  let snapshot = Infinity;
  for (let run = 0; run < 7; run++) {
    const started = performance.now();
    for (let i = 0; i < 200; i++) JSON.stringify(observer.snapshot());
    snapshot = Math.min(snapshot, ((performance.now() - started) * 1000) / 200);
  }
  await observer.close();
  const ns = (value: number) => Math.round(value);
  return { bareNs: ns(best.bare), directNs: ns(best.direct), watchedNs: ns(best.watched), calledNs: ns(best.called), snapshotUs: Math.round(snapshot) };
}

/** Only the tap's cost (OBSERVE_TAP_ONLY=1): seconds instead of minutes, for working on the tap. */
async function printTapCost(): Promise<void> {
  const cost = await tapCost();
  console.log(
    `the tap alone, direct path (watch): ${cost.watchedNs - cost.directNs} ns per call (${cost.directNs} ns direct() untapped, ${cost.watchedNs} ns tapped; best of 7 runs of 500,000)`,
  );
  console.log(`the tap alone, routed path (called): ${cost.calledNs - cost.bareNs} ns per call (${cost.bareNs} ns bare, ${cost.calledNs} ns tapped)`);
  console.log(`an open page's tick: ${cost.snapshotUs} µs for the snapshot and its JSON, once a second (best of 7 runs of 200)`);
}

if (process.env.OBSERVE_TAP_ONLY !== "1") await throughput();
await printTapCost();
