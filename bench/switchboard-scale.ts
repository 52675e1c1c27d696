/**
 * Switchboard at scale, over memory pairs (so the numbers are the runtime's, not processes'): time to
 * start N servers (connect + initialize each, under the supervisor) and the heap each supervised
 * connection costs, for N = 10, 100, 1,000 and 10,000 (SCALE_SERVERS=10,100 picks others); the
 * targets (bench/lib/targets.ts): at most 12 KiB per connection at 1,000; 10,000 start in under 2 s and list in under 1 s.
 * Run with --expose-gc.
 */
import { memoryPair, Switchboard, type MemoryTransport } from "./lib/runtime.js";
import { settledHeap } from "./lib/heap.js";
import { machine, writeResult } from "./lib/results.js";
import { machineLine, table } from "./lib/stats.js";

/** A tiny in-process MCP server: answers initialize and tools/list. */
function serverSide(transport: MemoryTransport): void {
  void transport.start({
    message: (m) => {
      if (!("method" in m) || !("id" in m)) return;
      const result =
        m.method === "initialize"
          ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "tiny", version: "1" } }
          : m.method === "tools/list"
            ? { tools: [{ name: "echo", inputSchema: { type: "object" } }] }
            : { content: [] };
      void transport.send({ jsonrpc: "2.0", id: m.id, result });
    },
    error: () => {},
    close: () => {},
  });
}

const started = machine();
const counts = (process.env.SCALE_SERVERS ?? "10,100,1000,10000").split(",").map(Number);
const rows: (string | number)[][] = [];
const results: Record<number, { startMs: number; listMs: number; stopMs: number; bytesPerConnection: number }> = {};
for (const n of counts) {
  const pairs = Array.from({ length: n }, () => memoryPair());
  for (const [, server] of pairs) serverSide(server);
  const servers = Object.fromEntries(pairs.map(([client], i) => [`s${i}`, { transport: () => client }]));
  const before = await settledHeap();
  const board = new Switchboard({ servers });
  const startedAt = performance.now();
  await board.start();
  const startMs = performance.now() - startedAt;
  const listStarted = performance.now();
  const tools = await board.listTools();
  const listMs = performance.now() - listStarted;
  const after = await settledHeap();
  if (tools.length !== n) throw new Error(`expected ${n} tools, got ${tools.length}`);
  const bytesPerConnection = (after - before) / n;
  const stopStarted = performance.now();
  await board.stop();
  const stopMs = performance.now() - stopStarted;
  results[n] = { startMs: Math.round(startMs), listMs: Math.round(listMs), stopMs: Math.round(stopMs), bytesPerConnection: Math.round(bytesPerConnection) };
  rows.push([n.toLocaleString("en-US"), startMs, startMs / n, listMs, stopMs, `${(bytesPerConnection / 1024).toFixed(1)} KiB`]);
}

console.log(`\n## Switchboard scale, memory pairs (${machineLine()})\n`);
console.log(table(["servers", "start all (ms)", "ms per server", "listTools, all (ms)", "stop all (ms)", "heap per supervised connection"], rows));
console.log(JSON.stringify({ bench: "switchboard-scale", results }));

const at = (n: number) => results[n];
const readings: Record<string, number> = {};
if (at(1000)) readings["connection-kib-1000"] = at(1000).bytesPerConnection / 1024;
if (at(10_000)) {
  readings["start-10000-ms"] = at(10_000).startMs;
  readings["list-10000-ms"] = at(10_000).listMs;
}
const groups = (value: (r: (typeof results)[number]) => number) =>
  counts.map((n) => ({ label: n.toLocaleString("en-US"), values: { Switchboard: value(results[n]) } }));
writeResult(
  {
    bench: "switchboard-scale",
    title: "Switchboard at scale, memory pairs",
    method: "N servers over memory pairs under one Switchboard: start (connect + initialize each), listTools, heap after full GCs, stop",
    rows: counts.map((n) => ({ servers: n, ...results[n] })),
    ratios: {},
    targets: readings,
    chart: {
      title: "Switchboard at scale, memory pairs",
      xLabel: "servers under one Switchboard",
      panels: [
        { title: "start all", unit: "ms", groups: groups((r) => r.startMs) },
        { title: "listTools, all", unit: "ms", groups: groups((r) => r.listMs) },
        {
          title: "heap per connection",
          unit: "KiB",
          groups: groups((r) => Math.round(r.bytesPerConnection / 102.4) / 10),
          threshold: { value: 12, label: "target ≤ 12 KiB at 1,000" },
        },
      ],
    },
  },
  started,
);
