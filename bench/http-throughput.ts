/**
 * Streamable HTTP throughput, in one run: this client (undici) vs the official SDK client
 * (StreamableHTTPClientTransport, global fetch) vs two raw JSON-RPC loops (keep-alive POSTs, one
 * JSON.parse per reply, nothing else: on node:http, and on undici's Pool.request), calling `echo`, against a minimal raw responder (JSON replies: the client is
 * the bottleneck) and the SDK's McpServer with sessions (SSE replies: what users run). The
 * targets (bench/lib/targets.ts): at least 0.95x the raw undici loop with JSON replies, 0.9x with SSE replies, at c1 and c64.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ECHO_ARGS, ourEchoClient, sdkEchoClient, serverProcess } from "./lib/echo-clients.js";
import { rawHttpClient } from "./lib/raw-http-client.js";
import { rawUndiciClient } from "./lib/raw-undici-client.js";
import { cellName, OURS, quietListenerWarnings, runMatrix, type MatrixResult } from "./lib/throughput-matrix.js";

const at = (port: number) => `http://127.0.0.1:${port}/mcp`;
const JSON_SERVER = "raw HTTP responder (JSON replies)";
const SSE_SERVER = "SDK McpServer, sessions (SSE replies)";
const SDK = "official SDK Client";
const RAW = "raw JSON-RPC loop";
const RAW_UNDICI = "raw undici loop";
const vsRaw = (results: MatrixResult, server: string, concurrency: number) => {
  const cell = results[cellName(server, concurrency)];
  return cell[OURS].reqPerSec / cell[RAW_UNDICI].reqPerSec;
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
    [RAW_UNDICI]: (url) => rawUndiciClient(url, ECHO_ARGS),
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
