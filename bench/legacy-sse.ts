/**
 * The legacy HTTP+SSE transport (2024-11-05) against Streamable HTTP, in one run: this client on each,
 * and the official SDK's SSEClientTransport, calling `echo` on the raw responder (its `/sse` and `/mcp`
 * endpoints, one process), so the client is what is measured. On the legacy transport every call is a
 * POST answered 202 plus an event on the one GET stream; on Streamable HTTP it is a POST answered 200
 * with JSON. "ours ÷ mcp-switchboard, Streamable HTTP" says what a call on the legacy transport costs
 * next to one on Streamable HTTP.
 */
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { ourEchoClient, sdkEchoClient, serverProcess } from "./lib/echo-clients.js";
import { OURS, quietListenerWarnings, runMatrix } from "./lib/throughput-matrix.js";

const STREAMABLE = "mcp-switchboard, Streamable HTTP (JSON replies)";
const SDK = "official SDK Client, HTTP+SSE";

quietListenerWarnings();
await runMatrix({
  title: "Legacy HTTP+SSE throughput (mcp-switchboard on HTTP+SSE, against itself on Streamable HTTP)",
  bench: "legacy-sse",
  servers: { "raw HTTP responder": serverProcess("raw-http-responder.mjs", (port) => `http://127.0.0.1:${port}`) },
  clients: {
    [OURS]: ourEchoClient((base) => ({ url: `${base}/sse`, type: "sse" })),
    [STREAMABLE]: ourEchoClient((base) => ({ url: `${base}/mcp` })),
    [SDK]: sdkEchoClient((base) => new SSEClientTransport(new URL(`${base}/sse`))),
  },
  fewerCalls: { [SDK]: 5_000 },
});
