/** The limit for WebSocket: one text frame per request, ids matched in a map, nothing else. */
import WebSocket from "ws";
import type { Caller } from "./throughput-matrix.js";

export async function rawWsClient(url: string, args: Record<string, unknown>): Promise<Caller> {
  const socket = new WebSocket(url, "mcp");
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const waiting = new Map<number, (value: unknown) => void>();
  socket.on("message", (data) => {
    const message = JSON.parse(data.toString()) as { id?: number };
    if (message.id !== undefined) {
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let id = 0;
  const request = (method: string, params: unknown) =>
    new Promise<unknown>((resolve) => {
      const current = id++;
      waiting.set(current, resolve);
      socket.send(JSON.stringify({ jsonrpc: "2.0", id: current, method, params }));
    });
  await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } });
  socket.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  return {
    call: () => request("tools/call", { name: "echo", arguments: args }),
    close: async () => {
      socket.close();
      await new Promise((resolve) => socket.once("close", resolve));
    },
  };
}
