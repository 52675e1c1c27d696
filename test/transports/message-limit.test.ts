/**
 * docs/guide/switchboard.md, "Limits and faults": one limit for every transport, `maxMessageBytes`, enforced while reading. A server
 * that streams one endless SSE line, an endless JSON body, a Content-Length over the limit, a huge stdio
 * line or a huge WebSocket frame fails the request it answers at once, with a `MessageTooLargeError`
 * naming the limit and the server; other requests go on (WebSocket: the connection closes, since a frame
 * cannot be skipped). The memory side (live memory after GC) is in message-limit-memory.test.ts.
 */
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { connect, ConnectionClosedError, MessageTooLargeError, type McpClient } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { waitFor } from "../helpers/processes.js";
import { honestAnswer, replyJson, startHostileHttp } from "../fixtures/hostile-http.js";

const track = closeAfterEach();
const LIMIT = 1024 * 1024;
const node = process.execPath;
const HOSTILE_STDIO = new URL("../fixtures/stdio-hostile-server.mjs", import.meta.url).pathname;

/** Writes `head`, then `chunk` for as long as the client reads, at most `cap` bytes (a bounded loop). */
function flood(res: ServerResponse, head: string, chunk = "x".repeat(64 * 1024), cap = 256 * 1024 * 1024): void {
  let sent = 0;
  res.write(head);
  const pump = () => {
    while (!res.destroyed && sent < cap) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

function expectTooLarge(error: unknown, where: string | RegExp): void {
  expect(error).toBeInstanceOf(MessageTooLargeError);
  const failure = error as MessageTooLargeError;
  expect(failure.limit).toBe(LIMIT);
  expect(failure.retryable).toBe(false);
  expect(failure.message).toMatch(where);
  expect(failure.message).toMatch(/over the limit of 1048576 bytes \(maxMessageBytes\).*Raise maxMessageBytes/);
}

/** A 2025 Streamable HTTP server whose `flood` tool answers with `answer`, and whose other tools are honest. */
async function floodingServer(answer: (res: ServerResponse, id: unknown) => void) {
  const closed: string[] = [];
  const server = track(
    await startHostileHttp(({ body, res }) => {
      if (body?.method !== "tools/call" || body.params?.name !== "flood") return false;
      res.on("close", () => closed.push("flood"));
      answer(res, body.id);
      return true;
    }),
  );
  const client = track(await connect({ url: server.url }, { protocol: "legacy", maxMessageBytes: LIMIT }));
  return { server, client, closed };
}

/** The flood call fails at once with the limit named; a call made alongside and one made after succeed. */
async function floodFailsAlone(client: McpClient, where: RegExp): Promise<void> {
  const [flooded, beside] = await Promise.all([
    client.callTool("flood", {}, { timeoutMs: 60_000 }).catch((e: unknown) => e),
    client.callTool("echo", { beside: true }),
  ]);
  expectTooLarge(flooded, where);
  expect(beside.content).toEqual([{ type: "text", text: '{"beside":true}' }]);
  expect((await client.callTool("echo", { after: true })).content).toEqual([{ type: "text", text: '{"after":true}' }]);
}

describe("Streamable HTTP", () => {
  it("an endless SSE data line fails its request at once; the stream is dropped; other requests go on", async () => {
    const { server, client, closed } = await floodingServer((res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      flood(res, "id: 1\ndata: ");
    });
    await floodFailsAlone(client, new RegExp(`The event stream at ${server.url} sent a message of at least \\d+ bytes`));
    await waitFor(() => closed.length === 1);
  });

  it("an endless application/json body fails its request at once", async () => {
    const { server, client, closed } = await floodingServer((res, id) => {
      res.writeHead(200, { "content-type": "application/json" });
      flood(res, `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"x":"`);
    });
    await floodFailsAlone(client, new RegExp(`POST ${server.url} sent a message of at least \\d+ bytes`));
    await waitFor(() => closed.length === 1);
  });

  it("a Content-Length over the limit fails the request before a byte of the body is read", async () => {
    const { client } = await floodingServer((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": String(LIMIT + 1) }).flushHeaders();
    });
    await floodFailsAlone(client, /sent a message of at least 1048577 bytes/);
  });

  it("an oversize event on the GET stream is skipped with an error event; the stream goes on", async () => {
    let stream: ServerResponse | undefined;
    const server = track(
      await startHostileHttp(({ method, res }) => {
        if (method !== "GET") return false;
        res.writeHead(200, { "content-type": "text/event-stream" }).flushHeaders();
        stream = res;
        return true;
      }),
    );
    const client = track(await connect({ url: server.url }, { protocol: "legacy", maxMessageBytes: LIMIT }));
    const errors: Error[] = [];
    const logs: unknown[] = [];
    client.on("error", (e) => errors.push(e));
    client.on("log", (l) => logs.push(l.data));
    await waitFor(() => stream !== undefined);
    stream!.write(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"${"z".repeat(LIMIT + 10)}"}}\n\n`);
    stream!.write(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"after"}}\n\n`);
    await waitFor(() => logs.length === 1);
    expect(logs).toEqual(["after"]);
    expect(errors.filter((e) => e instanceof MessageTooLargeError)).toHaveLength(1);
  });
});

describe("stdio", () => {
  it("a line over the limit fails the request it answers at once (its id read from the line's end); the next call works", async () => {
    const client = track(await connect({ command: node, args: [HOSTILE_STDIO] }, { protocol: "legacy", maxMessageBytes: LIMIT }));
    const [big, beside] = await Promise.all([
      client.callTool("big", { bytes: 2 * LIMIT }, { timeoutMs: 60_000 }).catch((e: unknown) => e),
      client.callTool("echo", { beside: 1 }),
    ]);
    expectTooLarge(big, new RegExp(`MCP server "${node} ${HOSTILE_STDIO}" sent a message of at least \\d+ bytes`));
    expect(beside.content).toEqual([{ type: "text", text: '{"beside":1}' }]);
    expect((await client.callTool("big", { bytes: 1000 })).content[0]).toMatchObject({ type: "text" });
  });

  it("a line that never ends is dropped as it passes the limit: an error event, and memory stays bounded", async () => {
    const client = track(await connect({ command: node, args: [HOSTILE_STDIO] }, { protocol: "legacy", maxMessageBytes: LIMIT }));
    const errors: Error[] = [];
    client.on("error", (e) => errors.push(e));
    void client.callTool("endless-line", {}, { timeoutMs: 60_000 }).catch(() => {});
    await waitFor(() => errors.some((e) => e instanceof MessageTooLargeError));
    expect(errors.find((e) => e instanceof MessageTooLargeError)!.message).toMatch(/over the limit of 1048576 bytes/);
  });
});

describe("WebSocket", () => {
  it("a frame over the limit closes the connection (a frame cannot be skipped): pending requests fail naming the limit", async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, handleProtocols: () => "mcp" });
    await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
    track({ close: () => new Promise<void>((resolve) => (wss.clients.forEach((s) => s.terminate()), wss.close(() => resolve()))) });
    wss.on("connection", (socket) => {
      socket.on("message", (data) => {
        const message = JSON.parse(data.toString());
        if (message.id === undefined) return;
        if (message.params?.name === "flood") return void socket.send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { x: "w".repeat(2 * LIMIT) } }));
        if (message.params?.name === "hang") return;
        socket.send(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: honestAnswer(message) }));
      });
    });
    const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/mcp`;
    const client = track(await connect({ url }, { protocol: "legacy", maxMessageBytes: LIMIT }));
    const waiting = client.callTool("hang", {}).catch((e: unknown) => e);
    const flooded = await client.callTool("flood", {}).catch((e: unknown) => e);
    for (const error of [flooded, await waiting]) {
      expect(error).toBeInstanceOf(ConnectionClosedError);
      expect((error as Error).message).toMatch(new RegExp(`WebSocket ${url} sent a message of at least 1048577 bytes, over the limit of 1048576 bytes`));
      expect((error as Error).cause).toBeInstanceOf(MessageTooLargeError);
    }
  });
});

describe("the option", () => {
  it("must be a positive integer", async () => {
    await expect(connect({ url: "http://127.0.0.1:9/mcp" }, { maxMessageBytes: 0 })).rejects.toThrow(
      /maxMessageBytes must be a positive integer \(bytes\), got 0/,
    );
  });

  it("is a per-server config field, checked like the others", async () => {
    const { parseConfig } = await import("../../src/index.js");
    const config = parseConfig({ mcpServers: { big: { command: "x", maxMessageBytes: 1 << 26 } } }, { file: "mcp.json" });
    expect(config.servers.big.maxMessageBytes).toBe(1 << 26);
    expect(() => parseConfig({ mcpServers: { bad: { command: "x", maxMessageBytes: 0 } } }, { file: "mcp.json" })).toThrow(
      /mcp\.json, server "bad", field "maxMessageBytes"/,
    );
  });

  it("reaches every transport from the Switchboard's per-server config field", async () => {
    const server = track(
      await startHostileHttp(({ body, res }) =>
        body?.method === "tools/call" ? (replyJson(res, body.id, { content: [{ type: "text", text: "y".repeat(4096) }] }), true) : false,
      ),
    );
    const { Switchboard } = await import("../../src/index.js");
    const board = new Switchboard({ servers: { tiny: { url: server.url, type: "streamable-http", protocol: "legacy", maxMessageBytes: 1000 } } });
    track({ close: () => board.stop() });
    await board.start();
    const error = await board.callTool("tiny__echo", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessageTooLargeError);
    expect((error as MessageTooLargeError).limit).toBe(1000);
  });
});
