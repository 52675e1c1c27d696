/**
 * stdio throughput, in one run: this client vs the official SDK client vs a raw JSON-RPC loop, each
 * calling the `echo` tool, at concurrency 1 and 64, against two servers:
 * - a minimal hand-written responder (examples/servers/raw-responder.mjs): the server is not the
 *   bottleneck, so the client is measured;
 * - the SDK's McpServer (examples/servers/echo-server.mjs): what users run.
 * Each client spawns its own server process.
 */
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import { Switchboard } from "../src/index.js";
import { ECHO_ARGS as args, ourEchoClient, sdkEchoClient } from "./lib/echo-clients.js";
import { RawStdioClient } from "./lib/raw-stdio-client.js";
import { OURS, runMatrix, type BenchServer } from "./lib/throughput-matrix.js";

const node = process.execPath;
const script = (name: string) => async (): Promise<BenchServer> => ({
  address: fileURLToPath(new URL(`../examples/servers/${name}`, import.meta.url)),
  stop: async () => {},
});

const results = await runMatrix({
  title: "stdio throughput",
  bench: "stdio-throughput",
  totals: { c1: 3_000, c64: 20_000 },
  servers: { "raw responder": script("raw-responder.mjs"), "SDK McpServer": script("echo-server.mjs") },
  clients: {
    [OURS]: ourEchoClient((server) => ({ command: node, args: [server] })),
    "official SDK Client": sdkEchoClient((server) => new StdioClientTransport({ command: node, args: [server], stderr: "ignore" })),
    // The same client behind a Switchboard (routing, circuit breaker, limiter, hooks): the cost of supervision.
    "same, via Switchboard": async (server) => {
      const board = new Switchboard({ servers: { s: { command: node, args: [server] } }, client: { protocol: "legacy" } });
      await board.start();
      return { call: () => board.callTool("s__echo", args), close: () => board.stop() };
    },
    "raw JSON-RPC loop": async (server) => {
      const client = new RawStdioClient(node, [server]);
      await client.initialize();
      return { call: () => client.request("tools/call", { name: "echo", arguments: args }), close: () => client.close() };
    },
  },
});
const c64 = results["raw responder, concurrency 64"];
const vsSdk = c64[OURS].reqPerSec / c64["official SDK Client"].reqPerSec;
const vsRaw = c64[OURS].reqPerSec / c64["raw JSON-RPC loop"].reqPerSec;
console.log(`Raw responder, concurrency 64: ${vsSdk.toFixed(2)}x the SDK client (target ≥ 2.5x), ${vsRaw.toFixed(2)}x the raw loop (target ≥ 0.75x)`);
