/**
 * The limit for WebSocket, the leanest honest loop: one text frame per request, one JSON.parse per
 * reply, ids matched in a map, nothing else; the params of the repeated call are serialised once.
 */
import WebSocket from "ws";
import type { Caller } from "./throughput-matrix.js";

export async function rawWsClient(url: string, args: Record<string, unknown>): Promise<Caller> {
  const socket = new WebSocket(url, "mcp");
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const waiting = new Map<number, (value: unknown) => void>();
  socket.on("message", (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: number };
    if (message.id === undefined) return;
    const resolve = waiting.get(message.id);
    if (resolve === undefined) return;
    waiting.delete(message.id);
    resolve(message);
  });
  let id = 0;
  const send = (tail: string) =>
    new Promise<unknown>((resolve) => {
      const current = id++;
      waiting.set(current, resolve);
      socket.send(`{"jsonrpc":"2.0","id":${current}${tail}`);
    });
  await send(
    `,"method":"initialize","params":${JSON.stringify({ protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } })}}`,
  );
  socket.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`);
  const tail = `,"method":"tools/call","params":${JSON.stringify({ name: "echo", arguments: args })}}`;
  return {
    call: () => send(tail),
    close: async () => {
      socket.close();
      await new Promise((resolve) => socket.once("close", resolve));
    },
  };
}
