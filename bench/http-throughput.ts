/**
 * Streamable HTTP throughput, in one run: this client (node:http keep-alive) vs the official SDK client
 * (StreamableHTTPClientTransport, global fetch) vs a raw JSON-RPC loop (keep-alive POSTs, match ids,
 * nothing else), calling `echo`, against a minimal raw responder (JSON replies: the client is the
 * bottleneck) and the SDK's McpServer with sessions (SSE replies: what users run).
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connect } from "../src/index.js";
import { rawHttpClient } from "./lib/raw-http-client.js";
import { startServerProcess } from "./lib/server-process.js";
import { OURS, quietListenerWarnings, runMatrix, type BenchServer } from "./lib/throughput-matrix.js";

const args = { text: "hello" };

function httpServer(script: string): () => Promise<BenchServer> {
  return async () => {
    const server = await startServerProcess(fileURLToPath(new URL(`../examples/servers/${script}`, import.meta.url)));
    return { address: `http://127.0.0.1:${server.port}/mcp`, stop: server.stop };
  };
}

quietListenerWarnings();
await runMatrix({
  title: "Streamable HTTP throughput",
  bench: "http-throughput",
  totals: { c1: 1_000, c64: 5_000 },
  servers: {
    "raw HTTP responder (JSON replies)": httpServer("raw-http-responder.mjs"),
    "SDK McpServer, sessions (SSE replies)": httpServer("http-echo-server.mjs"),
  },
  clients: {
    [OURS]: async (url) => {
      const client = await connect({ url }, { protocol: "legacy" });
      return { call: () => client.callTool("echo", args), close: () => client.close() };
    },
    "official SDK Client": async (url) => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return { call: () => client.callTool({ name: "echo", arguments: args }), close: () => client.close() };
    },
    "raw JSON-RPC loop": (url) => rawHttpClient(url, args),
  },
});
