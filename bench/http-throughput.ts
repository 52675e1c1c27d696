/**
 * Streamable HTTP throughput, in one run: this client (node:http keep-alive) vs the official SDK client
 * (StreamableHTTPClientTransport, global fetch) vs a raw JSON-RPC loop (keep-alive POSTs, match ids,
 * nothing else), calling `echo`, against a minimal raw responder (JSON replies: the client is the
 * bottleneck) and the SDK's McpServer with sessions (SSE replies: what users run).
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ECHO_ARGS, ourEchoClient, sdkEchoClient, serverProcess } from "./lib/echo-clients.js";
import { rawHttpClient } from "./lib/raw-http-client.js";
import { OURS, quietListenerWarnings, runMatrix } from "./lib/throughput-matrix.js";

const at = (port: number) => `http://127.0.0.1:${port}/mcp`;

quietListenerWarnings();
await runMatrix({
  title: "Streamable HTTP throughput",
  bench: "http-throughput",
  totals: { c1: 1_000, c64: 5_000 },
  servers: {
    "raw HTTP responder (JSON replies)": serverProcess("raw-http-responder.mjs", at),
    "SDK McpServer, sessions (SSE replies)": serverProcess("http-echo-server.mjs", at),
  },
  clients: {
    [OURS]: ourEchoClient((url) => ({ url })),
    "official SDK Client": sdkEchoClient((url) => new StreamableHTTPClientTransport(new URL(url))),
    "raw JSON-RPC loop": (url) => rawHttpClient(url, ECHO_ARGS),
  },
});
