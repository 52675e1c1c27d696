/**
 * What the observer costs a Switchboard call, in one run: off (the default), on with no page open (the
 * tap counts every call; nothing is serialised), and on with a page open (an `/events` stream read in
 * this process, so the snapshot every second and its JSON are paid here, as a user's process pays them).
 *
 * Two servers, as bench/telemetry-overhead.ts: an in-process responder over a memory pair (the client's
 * CPU per call, the worst case for any per-call cost) and the stdio raw responder. The goal: on with a
 * page open ≥ 0.95x of off at concurrency 64 (docs/guide/benchmarks.md, "Benchmarks").
 */
import { fileURLToPath } from "node:url";
import { ECHO_ARGS } from "./lib/echo-clients.js";
import { MEMORY, respond, STDIO } from "./lib/memory-responder.js";
import type { Observer, ServerInit } from "../src/index.js";
import { memoryPair, Switchboard } from "./lib/runtime.js";
import { cellName, OURS, round2, runMatrix, type BenchServer, type Caller, type ClientFactory } from "./lib/throughput-matrix.js";

const NO_PAGE = "observer on, no page";
const PAGE = "observer on, page open";

/**
 * Reads a page's event stream until closed, as a browser tab would; counts the snapshots. `opened`
 * settles with the first snapshot: a round measures a page that is open, not one still connecting.
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

let pageFrames = 0;

function board(observer: "off" | "no page" | "page"): ClientFactory {
  return async (address): Promise<Caller> => {
    let server: ServerInit;
    if (address === MEMORY) {
      const [client, serverSide] = memoryPair();
      respond(serverSide);
      server = { transport: () => client };
    } else {
      server = { command: process.execPath, args: [address] };
    }
    const instance = new Switchboard({ servers: { s: server }, client: { protocol: "legacy" } });
    await instance.start();
    const watching = observer === "off" ? undefined : await instance.observe({ port: 0 });
    const page = observer === "page" && watching ? openPage(watching.url) : undefined;
    await page?.opened;
    return {
      call: () => instance.callTool("s__echo", ECHO_ARGS),
      close: async () => {
        if (page) pageFrames += await page.close();
        await watching?.close();
        await instance.stop();
      },
    };
  };
}

const rawResponder = fileURLToPath(new URL("../examples/servers/raw-responder.mjs", import.meta.url));
const results = await runMatrix({
  title: `Observer overhead, Switchboard (${OURS} = observer off)`,
  bench: "observe",
  servers: {
    [MEMORY]: async (): Promise<BenchServer> => ({ address: MEMORY, stop: async () => {} }),
    [STDIO]: async (): Promise<BenchServer> => ({ address: rawResponder, stop: async () => {} }),
  },
  clients: { [OURS]: board("off"), [NO_PAGE]: board("no page"), [PAGE]: board("page") },
  ourOtherForms: [NO_PAGE, PAGE],
  targets: (matrix) => ({
    "observer-page-c64": round2(matrix[cellName(STDIO, 64)][PAGE].reqPerSec / matrix[cellName(STDIO, 64)][OURS].reqPerSec),
  }),
});

for (const server of [MEMORY, STDIO]) {
  for (const concurrency of [1, 64]) {
    const cell = results[cellName(server, concurrency)];
    const off = cell[OURS].reqPerSec;
    const parts = [NO_PAGE, PAGE].map(
      (name) => `${name} ${round2(cell[name].reqPerSec / off)}x (+${(1e6 / cell[name].reqPerSec - 1e6 / off).toFixed(2)} µs/call)`,
    );
    console.log(`${cellName(server, concurrency)}: ${parts.join("; ")}`);
  }
}
console.log(`(the open pages received ${pageFrames} snapshots in all)`);

/**
 * The tap's own CPU per call, away from any I/O: awaiting an already-settled promise bare and through
 * the observer's tap, the best of several runs each (the least disturbed by a shared machine).
 */
async function tapCost(): Promise<{ bareNs: number; tappedNs: number; snapshotUs: number }> {
  const instance = new Switchboard({ servers: { s: { command: process.execPath, args: ["-e", ""], disabled: true } } });
  const observer = (await instance.observe({ port: 0 })) as Observer;
  const tap = instance.callTap!;
  const result = { content: [] };
  const n = 500_000;
  const best = { bare: Infinity, tapped: Infinity };
  for (let run = 0; run < 7; run++) {
    let started = performance.now();
    for (let i = 0; i < n; i++) await Promise.resolve(result);
    best.bare = Math.min(best.bare, ((performance.now() - started) * 1e6) / n);
    started = performance.now();
    for (let i = 0; i < n; i++) await tap.called("s__echo", ECHO_ARGS, Promise.resolve(result));
    best.tapped = Math.min(best.tapped, ((performance.now() - started) * 1e6) / n);
  }
  // What an open page costs per tick: the snapshot of a full ring of calls, as JSON, best of 7 runs of 200.
  let snapshot = Infinity;
  for (let run = 0; run < 7; run++) {
    const started = performance.now();
    for (let i = 0; i < 200; i++) JSON.stringify(observer.snapshot());
    snapshot = Math.min(snapshot, ((performance.now() - started) * 1000) / 200);
  }
  await observer.close();
  return { bareNs: Math.round(best.bare), tappedNs: Math.round(best.tapped), snapshotUs: Math.round(snapshot) };
}
const cost = await tapCost();
console.log(`the tap alone: ${cost.tappedNs - cost.bareNs} ns per call (${cost.bareNs} ns bare, ${cost.tappedNs} ns tapped; best of 7 runs of 500,000)`);
console.log(`an open page's tick: ${cost.snapshotUs} µs for the snapshot and its JSON, once a second (best of 7 runs of 200)`);
