import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { Connection } from "../../src/connection/connection.js";
import { McpClient } from "../../src/client/client.js";
import {
  ConnectionClosedError,
  MethodNotSupportedError,
  ProtocolError,
  RequestCancelledError,
  RequestTimeoutError,
  TransportError,
} from "../../src/jsonrpc/errors.js";
import { ScriptedServer } from "../helpers/scripted-server.js";

async function open(server: ScriptedServer, options: ConstructorParameters<typeof Connection>[1] = {}) {
  const connection = new Connection(server.clientSide, { protocol: "legacy", ...options });
  await connection.start();
  return { connection, client: new McpClient(connection) };
}

describe("Connection (2025 era over a memory pair)", () => {
  it("runs the initialize handshake and exposes the server's facts", async () => {
    const server = new ScriptedServer();
    const { connection, client } = await open(server, { clientInfo: { name: "t", version: "9" } });
    expect(client.state).toBe("ready");
    expect(client.protocolVersion).toBe("2025-11-25");
    expect(client.serverInfo?.name).toBe("scripted");
    expect(client.instructions).toBe("be nice");
    expect(client.serverCapabilities).toEqual({ tools: { listChanged: true } });
    const init = server.messages("initialize")[0] as { params: Record<string, unknown> };
    expect(init.params).toMatchObject({ protocolVersion: "2025-11-25", clientInfo: { name: "t", version: "9" } });
    expect(server.messages("notifications/initialized")).toHaveLength(1);
    await connection.close();
    expect(client.state).toBe("closed");
  });

  it("accepts an older version the server answers with, and refuses one it does not know", async () => {
    const older = new ScriptedServer();
    older.on("initialize", () => ({ protocolVersion: "2024-11-05", capabilities: {}, serverInfo: { name: "o", version: "1" } }));
    const { client } = await open(older);
    expect(client.protocolVersion).toBe("2024-11-05");
    await client.close();

    const odd = new ScriptedServer();
    odd.on("initialize", () => ({ protocolVersion: "1999-01-01", capabilities: {}, serverInfo: { name: "o", version: "1" } }));
    const connection = new Connection(odd.clientSide, { protocol: "legacy" });
    await expect(connection.start()).rejects.toThrow(/1999-01-01.*2025-11-25/);
    expect(connection.state).toBe("failed");
  });

  it("settles 10,000 concurrent calls and leaves no pending entry, timer or listener", async () => {
    const server = new ScriptedServer();
    const { connection, client } = await open(server);
    const controller = new AbortController();
    EventEmitter.setMaxListeners(0, controller.signal);
    const calls = Array.from({ length: 10_000 }, (_, i) => client.callTool("echo", { text: `n${i}` }, { signal: controller.signal, onProgress: () => {} }));
    expect(connection.stats().pending).toBe(10_000);
    expect(connection.stats().timerArmed).toBe(true);
    const results = await Promise.all(calls);
    results.forEach((result, i) => expect(result.content[0]).toEqual({ type: "text", text: `n${i}` }));
    expect(connection.stats()).toEqual({ pending: 0, timerArmed: false, waiting: 0, inbound: 0 });
    // Every abort listener was removed when its request settled.
    expect(EventEmitter.getEventListeners(controller.signal, "abort")).toHaveLength(0);
    await client.close();
  });

  it("times out, rejects with RequestTimeoutError and sends notifications/cancelled", async () => {
    const server = new ScriptedServer().on("tools/call", () => "silent");
    const { connection, client } = await open(server);
    const error = await client.callTool("echo", {}, { timeoutMs: 50 }).catch((e) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error.message).toMatch(/tools\/call.*50 ms/);
    expect(error.retryable).toBe(true);
    expect(error.delivered).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    const call = server.messages("tools/call")[0] as { id: number };
    expect(server.messages("notifications/cancelled")[0]).toMatchObject({ params: { requestId: call.id } });
    expect(connection.stats()).toMatchObject({ pending: 0, timerArmed: false });
    await client.close();
  });

  it("cancels on abort with RequestCancelledError and notifications/cancelled", async () => {
    const server = new ScriptedServer().on("tools/call", () => "silent");
    const { connection, client } = await open(server);
    const controller = new AbortController();
    const pending = client.callTool("echo", {}, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 5));
    controller.abort("user changed their mind");
    const error = await pending.catch((e) => e);
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect(error.message).toMatch(/user changed their mind/);
    await new Promise((r) => setTimeout(r, 5));
    expect(server.messages("notifications/cancelled")[0]).toMatchObject({ params: { reason: "user changed their mind" } });
    expect(connection.stats().pending).toBe(0);
    await client.close();
  });

  it("delivers progress, resets the deadline on progress, and enforces maxTotalTimeoutMs", async () => {
    const server = new ScriptedServer().on("tools/call", (request, s) => {
      const token = (request.params as { _meta: { progressToken: number } })._meta.progressToken;
      let step = 0;
      const timer = setInterval(() => {
        step++;
        s.notify("notifications/progress", { progressToken: token, progress: step, total: 8, message: `step ${step}` });
        if (step === 8) {
          clearInterval(timer);
          s.send({ jsonrpc: "2.0", id: request.id, result: { content: [] } });
        }
      }, 150);
      return "silent";
    });
    const { client } = await open(server);
    const seen: number[] = [];
    // 8 steps x 150 ms = 1.2 s, twice the 600 ms timeout, but each step resets it. The margins are wide
    // (450 ms between a step and the deadline, 500 ms between the cap and the answer): a loaded
    // machine delays a timer by tens of ms, and 30 ms steps against an 80 ms timeout failed there.
    await client.callTool("slow", {}, { timeoutMs: 600, resetTimeoutOnProgress: true, onProgress: (p) => seen.push(p.progress) });
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const capped = await client
      .callTool("slow", {}, { timeoutMs: 600, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 700, onProgress: () => {} })
      .catch((e) => e);
    expect(capped).toBeInstanceOf(RequestTimeoutError);
    expect(capped.message).toMatch(/maxTotalTimeoutMs/);
    await client.close();
  });

  it("answers server pings, reports garbage and unknown ids as error events without throwing", async () => {
    const server = new ScriptedServer();
    const { client } = await open(server);
    const errors: Error[] = [];
    client.on("error", (e) => errors.push(e));
    server.send({ jsonrpc: "2.0", id: "srv-1", method: "ping" });
    server.send({ jsonrpc: "2.0", id: 999_999, result: {} });
    await new Promise((r) => setTimeout(r, 5));
    expect(server.received.find((m) => "id" in m && m.id === "srv-1")).toEqual({ jsonrpc: "2.0", id: "srv-1", result: {} });
    expect(errors.map((e) => e.message).join()).toMatch(/unknown request id 999999/);
    expect((await client.callTool("echo", { text: "still fine" })).content[0]).toMatchObject({ text: "still fine" });
    await client.close();
  });

  it("answers -32601 to a server request without a handler", async () => {
    const server = new ScriptedServer();
    const { client } = await open(server);
    server.send({ jsonrpc: "2.0", id: 7, method: "sampling/createMessage", params: {} });
    await new Promise((r) => setTimeout(r, 5));
    expect(server.received.find((m) => "id" in m && m.id === 7 && "error" in m)).toMatchObject({ error: { code: -32601 } });
    await client.close();
  });

  it("rejects every pending request with ConnectionClosedError when the server goes away", async () => {
    const server = new ScriptedServer().on("tools/call", () => "silent");
    const { connection, client } = await open(server);
    const closed = new Promise<Error | undefined>((resolve) => client.on("close", resolve));
    const calls = Array.from({ length: 64 }, () => client.callTool("echo", {}).catch((e) => e));
    await new Promise((r) => setTimeout(r, 5));
    await server.crash();
    const errors = await Promise.all(calls);
    for (const error of errors) {
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect(error).toBeInstanceOf(TransportError);
      expect(error.retryable).toBe(true);
    }
    expect(await closed).toBeInstanceOf(ConnectionClosedError);
    expect(connection.state).toBe("failed");
    await client.close(); // idempotent after failure
  });

  it("close() is idempotent and settles pending requests", async () => {
    const server = new ScriptedServer().on("tools/call", () => "silent");
    const { client } = await open(server);
    const pending = client.callTool("echo", {}).catch((e) => e);
    await Promise.all([client.close(), client.close()]);
    expect(await pending).toBeInstanceOf(ConnectionClosedError);
    await expect(client.callTool("echo", {})).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it("queues requests made before ready and sends them once ready", async () => {
    const server = new ScriptedServer();
    const connection = new Connection(server.clientSide, { protocol: "legacy" });
    const client = new McpClient(connection);
    const early = client.callTool("echo", { text: "early" });
    await connection.start();
    expect((await early).content[0]).toMatchObject({ text: "early" });
    await client.close();
  });

  it("follows nextCursor across pages, and fails fast on an undeclared capability", async () => {
    const server = new ScriptedServer().on("tools/list", (request) => {
      const cursor = (request.params as { cursor?: string } | undefined)?.cursor;
      const page = cursor === undefined ? 0 : Number(cursor);
      return { tools: [{ name: `t${page}`, inputSchema: { type: "object" } }], ...(page < 2 ? { nextCursor: String(page + 1) } : {}) };
    });
    const { client } = await open(server);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["t0", "t1", "t2"]);
    const error = await client.listPrompts().catch((e) => e);
    expect(error).toBeInstanceOf(MethodNotSupportedError);
    expect(error.message).toMatch(/"prompts" capability/);
    expect(server.messages("prompts/list")).toHaveLength(0);
    await client.close();
  });

  it("turns JSON-RPC errors into ProtocolError with code and data", async () => {
    const server = new ScriptedServer().on("tools/call", (request, s) => {
      s.send({ jsonrpc: "2.0", id: request.id, error: { code: -32602, message: "Unknown tool: nope", data: { tool: "nope" } } });
      return "silent";
    });
    const { client } = await open(server);
    const error = await client.callTool("nope").catch((e) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.code).toBe(-32602);
    expect(error.data).toEqual({ tool: "nope" });
    expect(error.retryable).toBe(false);
    await client.close();
  });
});
