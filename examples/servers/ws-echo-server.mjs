#!/usr/bin/env node
// The bundled echo server (the official SDK's McpServer) over WebSocket, subprotocol "mcp". The SDK has
// no WebSocket server transport, so a few lines adapt a ws socket to its Transport interface.
// Prints its port on stdout; exits when stdin closes.
import { WebSocketServer } from "ws";
import { createEchoServer } from "./echo-tools.mjs";

const wss = new WebSocketServer({
  host: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  handleProtocols: (protocols) => (protocols.has("mcp") ? "mcp" : false),
});
wss.on("connection", (socket) => {
  const transport = {
    start: async () => {},
    send: async (message) => void socket.send(JSON.stringify(message)),
    close: async () => socket.close(),
  };
  socket.on("message", (data) => transport.onmessage?.(JSON.parse(data.toString())));
  socket.on("close", () => transport.onclose?.());
  void createEchoServer("ws-echo-server").connect(transport);
});
wss.once("listening", () => console.log(wss.address().port));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
