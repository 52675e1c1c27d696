/**
 * stdio throughput, in one run: this client vs the official SDK client vs a raw JSON-RPC loop, each
 * calling the `echo` tool, at concurrency 1 and 64, against two servers:
 * - a minimal hand-written responder (examples/servers/raw-responder.mjs): the server is not the
 *   bottleneck, so the client is measured;
 * - the SDK's McpServer (examples/servers/echo-server.mjs): what users run.
 * Each client spawns its own server process. Also the same client behind a Switchboard: the cost of
 * supervision (the target in bench/lib/targets.ts: at least 0.9x the bare client at c1 and c64 on the raw responder).
 */
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import { Switchboard } from "./lib/runtime.js";
import { ECHO_ARGS as args, ourEchoClient, sdkEchoClient } from "./lib/echo-clients.js";
import { RawStdioClient } from "./lib/raw-stdio-client.js";
import { cellName, OURS, runMatrix, type BenchServer } from "./lib/throughput-matrix.js";

const node = process.execPath;
const script = (name: string) => async (): Promise<BenchServer> => ({
  address: fileURLToPath(new URL(`../examples/servers/${name}`, import.meta.url)),
  stop: async () => {},
});
const RAW = "raw responder";
const BOARD = "same, via Switchboard";

const results = await runMatrix({
  title: "stdio throughput",
  bench: "stdio-throughput",
  servers: { [RAW]: script("raw-responder.mjs"), "SDK McpServer": script("echo-server.mjs") },
  clients: {
    [OURS]: ourEchoClient((server) => ({ command: node, args: [server] })),
    "official SDK Client": sdkEchoClient((server) => new StdioClientTransport({ command: node, args: [server], stderr: "ignore" })),
    // The same client behind a Switchboard (routing, circuit breaker, limiter, hooks): the cost of supervision.
    [BOARD]: async (server) => {
      const board = new Switchboard({ servers: { s: { command: node, args: [server] } }, client: { protocol: "legacy" } });
      await board.start();
      return { call: () => board.callTool("s__echo", args), close: () => board.stop() };
    },
    "raw JSON-RPC loop": async (server) => {
      const client = new RawStdioClient(node, [server]);
      await client.initialize();
      return { call: client.repeat("tools/call", { name: "echo", arguments: args }), close: () => client.close() };
    },
  },
  ourOtherForms: [BOARD],
  targets: (results) => ({
    "switchboard-c1": boardRatio(results[cellName(RAW, 1)]),
    "switchboard-c64": boardRatio(results[cellName(RAW, 64)]),
  }),
});

function boardRatio(cell: Record<string, { reqPerSec: number }>): number {
  return cell[BOARD].reqPerSec / cell[OURS].reqPerSec;
}

const c1 = results[cellName(RAW, 1)];
const c64 = results[cellName(RAW, 64)];
console.log(
  `Raw responder: the Switchboard is ${boardRatio(c1).toFixed(2)}x the bare client at c1, ${boardRatio(c64).toFixed(2)}x at c64 (target ≥ 0.9x); ` +
    `at c64 the bare client is ${(c64[OURS].reqPerSec / c64["official SDK Client"].reqPerSec).toFixed(2)}x the SDK client (target ≥ 2.5x), ` +
    `${(c64[OURS].reqPerSec / c64["raw JSON-RPC loop"].reqPerSec).toFixed(2)}x the raw loop (target ≥ 0.75x)`,
);
