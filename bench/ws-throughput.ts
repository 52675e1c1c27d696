/**
 * WebSocket throughput, in one run: this client vs the official SDK client (WebSocketClientTransport)
 * vs a raw JSON-RPC loop (one frame per request, match ids), calling `echo`, against a minimal raw
 * responder and the SDK's McpServer behind a small ws adapter (the SDK has no WebSocket server).
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
import WebSocket from "ws";
import { connect } from "../src/index.js";
import { rawWsClient } from "./lib/raw-ws-client.js";
import { startServerProcess } from "./lib/server-process.js";
import { OURS, quietListenerWarnings, runMatrix, type BenchServer } from "./lib/throughput-matrix.js";

const args = { text: "hello" };

function wsServer(script: string): () => Promise<BenchServer> {
  return async () => {
    const server = await startServerProcess(fileURLToPath(new URL(`../examples/servers/${script}`, import.meta.url)));
    return { address: `ws://127.0.0.1:${server.port}/mcp`, stop: server.stop };
  };
}

// The SDK's client transport uses the browser WebSocket global, which Node 20 lacks; ws provides the same API.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
quietListenerWarnings();
await runMatrix({
  title: "WebSocket throughput",
  bench: "ws-throughput",
  totals: { c1: 3_000, c64: 20_000 },
  servers: {
    "raw WebSocket responder": wsServer("raw-http-responder.mjs"),
    "SDK McpServer over ws": wsServer("ws-echo-server.mjs"),
  },
  clients: {
    [OURS]: async (url) => {
      const client = await connect({ url }, { protocol: "legacy" });
      return { call: () => client.callTool("echo", args), close: () => client.close() };
    },
    "official SDK Client": async (url) => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(new WebSocketClientTransport(new URL(url)));
      return { call: () => client.callTool({ name: "echo", arguments: args }), close: () => client.close() };
    },
    "raw JSON-RPC loop": (url) => rawWsClient(url, args),
  },
});
