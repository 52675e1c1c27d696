/**
 * A peer that stops reading what the client writes (a stdio server that no longer reads its stdin, a
 * WebSocket peer that no longer reads its socket): the pipe or socket fills, and without a bound every
 * later request would wait in memory until its deadline. Past `maxPendingWriteBytes` a send fails at
 * once with an OverloadError that says why, and nothing else is lost.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { connect, OverloadError, RequestTimeoutError, StdioTransport, WebSocketTransport } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";

const track = closeAfterEach();
const SERVER = new URL("../fixtures/stdio-hostile-server.mjs", import.meta.url).pathname;
const LIMIT = 512 * 1024;
const BIG = "x".repeat(128 * 1024);

/** Sends `count` calls of ~128 KiB each; sorts the outcomes. */
async function flood(call: () => Promise<unknown>, count: number): Promise<{ overloaded: OverloadError[]; timedOut: number; other: unknown[] }> {
  const outcomes = await Promise.all(
    Array.from({ length: count }, () =>
      call().then(
        () => "ok",
        (error: unknown) => error,
      ),
    ),
  );
  const overloaded = outcomes.filter((o): o is OverloadError => o instanceof OverloadError);
  const timedOut = outcomes.filter((o) => o instanceof RequestTimeoutError).length;
  const other = outcomes.filter((o) => !(o instanceof OverloadError) && !(o instanceof RequestTimeoutError));
  return { overloaded, timedOut, other };
}

describe("a peer that stops reading", () => {
  it("stdio: sends past maxPendingWriteBytes fail at once with an OverloadError naming the limit", async () => {
    const transport = new StdioTransport({ command: process.execPath, args: [SERVER], maxPendingWriteBytes: LIMIT });
    const client = track(await connect(transport, { protocol: "legacy", requestTimeoutMs: 1500 }));
    await client.callTool("stop-reading");
    const { overloaded, timedOut, other } = await flood(() => client.callTool("echo", { text: BIG }), 40);
    expect(other).toEqual([]);
    // 40 x 128 KiB = 5 MiB asked; the pipe plus the 512 KiB bound take a handful, the rest are refused.
    expect(overloaded.length).toBeGreaterThan(25);
    expect(overloaded[0].message).toMatch(/is not reading: .* wait to be written \(limit: maxPendingWriteBytes, 0\.5 MiB\); message not sent/);
    expect(overloaded[0].delivered).toBe(false);
    expect(timedOut).toBe(40 - overloaded.length);
    expect(client.connection.stats().pending).toBe(0);
  });

  describe("WebSocket", () => {
    let wss: WebSocketServer | undefined;
    let http: ReturnType<typeof createServer> | undefined;
    afterEach(async () => {
      for (const socket of wss?.clients ?? []) socket.terminate();
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
      await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
      wss = http = undefined;
    });

    it("sends past maxPendingWriteBytes fail at once with an OverloadError", async () => {
      http = createServer();
      wss = new WebSocketServer({ server: http, handleProtocols: () => "mcp" });
      wss.on("connection", (socket: WebSocket) => {
        socket.on("message", (data) => {
          const message = JSON.parse(String(data)) as { id?: number; method: string; params?: { name?: string } };
          if (message.id === undefined) return;
          if (message.method === "initialize") {
            socket.send(
              JSON.stringify({
                jsonrpc: "2.0",
                id: message.id,
                result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "deaf", version: "1" } },
              }),
            );
          } else if (message.params?.name === "stop-reading") {
            socket.send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { content: [] } }));
            (socket as unknown as { _socket: { pause(): void } })._socket.pause();
          }
        });
      });
      await new Promise<void>((resolve) => http!.listen(0, "127.0.0.1", resolve));
      const { port } = http.address() as AddressInfo;
      const transport = new WebSocketTransport({ url: `ws://127.0.0.1:${port}/`, maxPendingWriteBytes: LIMIT, pingIntervalMs: 0 });
      const client = track(await connect(transport, { protocol: "legacy", requestTimeoutMs: 1500 }));
      await client.callTool("stop-reading");
      const { overloaded, timedOut, other } = await flood(() => client.callTool("echo", { text: BIG }), 120);
      expect(other).toEqual([]);
      expect(overloaded.length).toBeGreaterThan(0);
      expect(overloaded[0].message).toMatch(/WebSocket peer ws:\/\/127\.0\.0\.1:\d+\/ is not reading/);
      expect(timedOut + overloaded.length).toBe(120);
    });
  });
});
