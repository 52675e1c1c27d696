#!/usr/bin/env node
// A minimal MCP responder over HTTP and WebSocket, hand-written with no SDK, for benchmarks: POST /mcp
// answers JSON (initialize, tools/list, tools/call echo, ping; 202 for notifications), GET /sse is the
// legacy HTTP+SSE transport, and the same port speaks WebSocket (subprotocol mcp). Prints its port on stdout.
import http from "node:http";
import { WebSocketServer } from "ws";

const TOOLS = [{ name: "echo", description: "Returns its text.", inputSchema: { type: "object", properties: { text: { type: "string" } } } }];
function answer(message) {
  if (message.id === undefined) return undefined;
  switch (message.method) {
    case "initialize":
      return {
        jsonrpc: "2.0",
        id: message.id,
        result: {
          protocolVersion: message.params?.protocolVersion ?? "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "raw-http-responder", version: "1.0.0" },
        },
      };
    case "tools/list":
      return { jsonrpc: "2.0", id: message.id, result: { tools: TOOLS } };
    case "tools/call":
      return { jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: String(message.params?.arguments?.text ?? "") }] } };
    case "ping":
      return { jsonrpc: "2.0", id: message.id, result: {} };
    default:
      return { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } };
  }
}

// The legacy HTTP+SSE transport (2024-11-05): GET /sse opens a session's event stream, whose first
// event names where to POST; each POST is answered 202 and its reply goes out on the stream.
const streams = new Map();
let sessions = 0;
function legacy(req, res) {
  if (req.method === "GET") {
    const session = String(++sessions);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(`event: endpoint\ndata: /messages?session=${session}\n\n`);
    streams.set(session, res);
    res.on("close", () => streams.delete(session));
    return;
  }
  const stream = streams.get(new URL(req.url, "http://x").searchParams.get("session"));
  if (req.method !== "POST" || stream === undefined) return void res.writeHead(404).end();
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    res.writeHead(202).end();
    const reply = answer(JSON.parse(body));
    if (reply !== undefined) stream.write(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
  });
}

const server = http.createServer((req, res) => {
  if (req.url === "/sse" || req.url.startsWith("/messages?")) return legacy(req, res);
  if (req.method !== "POST") return void res.writeHead(405).end();
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (chunk) => (body += chunk));
  req.on("end", () => {
    const reply = answer(JSON.parse(body));
    if (reply === undefined) return void res.writeHead(202).end();
    const text = JSON.stringify(reply);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
  });
});
const wss = new WebSocketServer({ server, handleProtocols: () => "mcp" });
wss.on("connection", (socket) =>
  socket.on("message", (data) => {
    const reply = answer(JSON.parse(data.toString()));
    if (reply !== undefined) socket.send(JSON.stringify(reply));
  }),
);
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
