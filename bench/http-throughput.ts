/**
 * Streamable HTTP throughput, in one run: this client (node:http keep-alive) vs the official SDK client
 * (StreamableHTTPClientTransport, global fetch) vs a raw JSON-RPC loop (keep-alive POSTs, one JSON.parse
 * per reply, nothing else), calling `echo`, against a minimal raw responder (JSON replies: the client is
 * the bottleneck) and the SDK's McpServer with sessions (SSE replies: what users run). The
 * targets (bench/lib/targets.ts): at least 0.95x the raw loop with JSON replies, 0.85x with SSE replies, at c1 and c64.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ECHO_ARGS, ourEchoClient, sdkEchoClient, serverProcess } from "./lib/echo-clients.js";
import { rawHttpClient } from "./lib/raw-http-client.js";
import { cellName, OURS, quietListenerWarnings, runMatrix, type MatrixResult } from "./lib/throughput-matrix.js";

const at = (port: number) => `http://127.0.0.1:${port}/mcp`;
const JSON_SERVER = "raw HTTP responder (JSON replies)";
const SSE_SERVER = "SDK McpServer, sessions (SSE replies)";
const SDK = "official SDK Client";
const RAW = "raw JSON-RPC loop";
const vsRaw = (results: MatrixResult, server: string, concurrency: number) => {
  const cell = results[cellName(server, concurrency)];
  return cell[OURS].reqPerSec / cell[RAW].reqPerSec;
};

quietListenerWarnings();
await runMatrix({
  title: "Streamable HTTP throughput",
  bench: "http-throughput",
  servers: {
    [JSON_SERVER]: serverProcess("raw-http-responder.mjs", at),
    [SSE_SERVER]: serverProcess("http-echo-server.mjs", at),
  },
  clients: {
    [OURS]: ourEchoClient((url) => ({ url })),
    [SDK]: sdkEchoClient((url) => new StreamableHTTPClientTransport(new URL(url))),
    [RAW]: (url) => rawHttpClient(url, ECHO_ARGS),
  },
  // The SDK client runs at ~1,000 req/s here: 20,000 calls would take most of the run for a steady rate.
  fewerCalls: { [SDK]: 5_000 },
  targets: (results) => ({
    "http-json-c1": vsRaw(results, JSON_SERVER, 1),
    "http-json-c64": vsRaw(results, JSON_SERVER, 64),
    "http-sse-c1": vsRaw(results, SSE_SERVER, 1),
    "http-sse-c64": vsRaw(results, SSE_SERVER, 64),
  }),
});
