/**
 * WebSocket throughput, in one run: this client vs the official SDK client (WebSocketClientTransport)
 * vs a raw JSON-RPC loop (one frame per request, one JSON.parse per reply, match ids), calling `echo`,
 * against a minimal raw responder and the SDK's McpServer behind a small ws adapter (the SDK has no
 * WebSocket server).
 */
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
import WebSocket from "ws";
import { ECHO_ARGS, ourEchoClient, sdkEchoClient, serverProcess } from "./lib/echo-clients.js";
import { rawWsClient } from "./lib/raw-ws-client.js";
import { OURS, quietListenerWarnings, runMatrix } from "./lib/throughput-matrix.js";

const at = (port: number) => `ws://127.0.0.1:${port}/mcp`;

// The SDK's client transport uses the browser WebSocket global, which Node 20 lacks; ws provides the same API.
(globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
quietListenerWarnings();
await runMatrix({
  title: "WebSocket throughput",
  bench: "ws-throughput",
  servers: {
    "raw WebSocket responder": serverProcess("raw-http-responder.mjs", at),
    "SDK McpServer over ws": serverProcess("ws-echo-server.mjs", at),
  },
  clients: {
    [OURS]: ourEchoClient((url) => ({ url })),
    "official SDK Client": sdkEchoClient((url) => new WebSocketClientTransport(new URL(url))),
    "raw JSON-RPC loop": (url) => rawWsClient(url, ECHO_ARGS),
  },
});
