#!/usr/bin/env node
// The bundled echo server over Streamable HTTP (the official SDK's McpServer, stateful sessions).
// Prints its port on stdout; exits when stdin closes.
import { randomUUID } from "node:crypto";
import http from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createEchoServer } from "./echo-tools.mjs";

const sessions = new Map();
const server = http.createServer(async (req, res) => {
  let text = "";
  for await (const chunk of req) text += chunk;
  const body = text ? JSON.parse(text) : undefined;
  const id = req.headers["mcp-session-id"];
  let transport = id ? sessions.get(id) : undefined;
  if (!transport) {
    if (id) return void res.writeHead(404).end();
    transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sid) => sessions.set(sid, transport) });
    await createEchoServer("http-echo-server").connect(transport);
  }
  await transport.handleRequest(req, res, body);
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
