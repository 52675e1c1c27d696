/**
 * Switchboard at scale, over memory pairs (so the numbers are the runtime's, not processes'): time to
 * start N servers (connect + initialize each, under the supervisor) and the heap each supervised
 * connection costs, for N = 10, 100, 1000. Run with --expose-gc.
 */
import { Switchboard } from "../src/index.js";
import { memoryPair, type MemoryTransport } from "../src/transports/memory.js";
import { settledHeap } from "./lib/heap.js";
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

const rows: (string | number)[][] = [];
const results: Record<number, { startMs: number; bytesPerConnection: number }> = {};
for (const n of [10, 100, 1000]) {
  const pairs = Array.from({ length: n }, () => memoryPair());
  for (const [, server] of pairs) serverSide(server);
  const servers = Object.fromEntries(pairs.map(([client], i) => [`s${i}`, { transport: () => client }]));
  const before = await settledHeap();
  const board = new Switchboard({ servers });
  const started = performance.now();
  await board.start();
  const startMs = performance.now() - started;
  const listStarted = performance.now();
  const tools = await board.listTools();
  const listMs = performance.now() - listStarted;
  const after = await settledHeap();
  if (tools.length !== n) throw new Error(`expected ${n} tools, got ${tools.length}`);
  const bytesPerConnection = (after - before) / n;
  results[n] = { startMs, bytesPerConnection };
  rows.push([String(n), startMs, startMs / n, listMs, `${(bytesPerConnection / 1024).toFixed(1)} KiB`]);
  await board.stop();
}

console.log(`\n## Switchboard scale, memory pairs (${machineLine()})\n`);
console.log(table(["servers", "start all (ms)", "ms per server", "listTools, all (ms)", "heap per supervised connection"], rows));
console.log(JSON.stringify({ bench: "switchboard-scale", results }));
