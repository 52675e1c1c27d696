/**
 * Memory per pending request: 100,000 requests in flight against a server that never answers, then all
 * cancelled. Reports heap growth per request and whether the heap returns to its baseline.
 * Run with --expose-gc (npm run bench does).
 */
import { createClient, memoryPair } from "./lib/runtime.js";
import { settledHeap } from "./lib/heap.js";
import { machine, writeResult } from "./lib/results.js";
import { table } from "./lib/stats.js";

const COUNT = Number(process.env.PENDING_COUNT ?? 100_000);
const started = machine();
// A server that completes the handshake and then swallows every request.
const [clientSide, serverSide] = memoryPair();
await serverSide.start({
  message: (m) => {
    if ("method" in m && "id" in m && m.method === "initialize") {
      void serverSide.send({
        jsonrpc: "2.0",
        id: m.id,
        result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "black-hole", version: "1" } },
      });
    }
  },
  error: () => {},
  close: () => {},
});
const client = createClient(clientSide, { protocol: "legacy" });
await client.start();

const baseline = await settledHeap();
const controller = new AbortController();
const pending: Promise<unknown>[] = new Array(COUNT);
for (let i = 0; i < COUNT; i++) pending[i] = client.callTool("echo", { text: "x" }, { signal: controller.signal }).catch(() => undefined);
await new Promise((r) => setImmediate(r)); // let the sends cross the memory pair
const loaded = await settledHeap();
controller.abort("benchmark over");
await Promise.all(pending);
pending.length = 0;
const after = await settledHeap();
const stats = client.connection.stats();
await client.close();

const perRequest = (loaded - baseline) / COUNT;
console.log(`\n## Memory per pending request (${COUNT.toLocaleString("en-US")} in flight, memory pair)\n`);
console.log(
  table(
    ["heap before", "heap with all pending", "bytes per pending request", "heap after cancelling all", "back to baseline"],
    [
      [
        `${(baseline / 1048576).toFixed(1)} MiB`,
        `${(loaded / 1048576).toFixed(1)} MiB`,
        Math.round(perRequest),
        `${(after / 1048576).toFixed(1)} MiB`,
        after - baseline < 2 * 1048576 ? "yes" : `no (+${((after - baseline) / 1048576).toFixed(1)} MiB)`,
      ],
    ],
  ),
);
console.log(`\npending after cancel: ${stats.pending}, timer armed: ${stats.timerArmed}`);
const backToBaseline = after - baseline < 2 * 1048576;
console.log(JSON.stringify({ bench: "pending-memory", bytesPerRequest: Math.round(perRequest), backToBaseline }));
writeResult(
  {
    bench: "pending-memory",
    title: "Heap per pending request",
    method: `${COUNT.toLocaleString("en-US")} requests in flight over a memory pair to a server that never answers, heap after full GCs`,
    rows: [
      {
        pending: COUNT,
        heapBeforeBytes: baseline,
        heapLoadedBytes: loaded,
        heapAfterBytes: after,
        bytesPerRequest: Math.round(perRequest),
        backToBaseline: String(backToBaseline),
      },
    ],
    ratios: {},
    targets: { "pending-bytes": perRequest },
    chart: {
      title: "Heap per pending request",
      panels: [
        {
          title: `${COUNT.toLocaleString("en-US")} in flight`,
          unit: "bytes",
          groups: [{ label: "callTool, memory pair", values: { "mcp-switchboard": Math.round(perRequest) } }],
          threshold: { value: 400, label: "target ≤ 400 B" },
        },
      ],
    },
  },
  started,
);
