import { connect as connectSocket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { gatewaysAfterEach, initialize, post, postListen } from "./helpers.js";

const { serve } = gatewaysAfterEach();

async function session(url: string): Promise<string> {
  const response = await post(url, initialize);
  expect(response.status).toBe(200);
  return response.headers.get("mcp-session-id")!;
}

describe("the gateway refuses bad input with the status and JSON-RPC code a client can act on", () => {
  it("malformed JSON: 400 with -32700; not a JSON-RPC message: -32600", async () => {
    const { url } = await serve();
    const id = await session(url);
    const bad = await post(url, "{not json", { "mcp-session-id": id });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    const notRpc = await post(url, JSON.stringify({ hello: 1 }), { "mcp-session-id": id });
    expect(((await notRpc.json()) as { error: { code: number } }).error.code).toBe(-32600);
  });

  it("params nested deeper than JSON can be written again: -32602, and the session carries on", async () => {
    const { url } = await serve();
    const id = await session(url);
    const depth = 100_000;
    const args = `{"text":"x","deep":${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const body = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo__echo","arguments":${args}}}`;
    const reply = (await (await post(url, body, { "mcp-session-id": id })).json()) as { error: { code: number; message: string } };
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toMatch(/tools\/call cannot be sent: its params are not JSON/);
    const ping = await post(url, JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }), { "mcp-session-id": id });
    expect(await ping.json()).toEqual({ jsonrpc: "2.0", id: 9, result: {} });
  });

  it("an unknown session: 404; none at all: 400", async () => {
    const { url } = await serve();
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect((await post(url, ping, { "mcp-session-id": "no-such-session" })).status).toBe(404);
    expect((await post(url, ping)).status).toBe(400);
    const id = await session(url);
    expect(await (await post(url, ping, { "mcp-session-id": id })).json()).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  it("a body over the configured limit: 413, whether declared or streamed", async () => {
    const { url } = await serve(undefined, { maxBodyBytes: 1024 });
    const id = await session(url);
    const big = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo__echo", arguments: { text: "x".repeat(2048) } } });
    expect((await post(url, big, { "mcp-session-id": id })).status).toBe(413);
    const streamed = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": id },
      body: new Blob([big]).stream(),
      duplex: "half",
    });
    expect(streamed.status).toBe(413);
  });

  it("a body that comes after its headers, in pieces, is read whole (and one with them at once)", async () => {
    const { url } = await serve();
    const id = await session(url);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "echo__echo", arguments: { text: "in pieces" } } });
    const { port } = new URL(url);
    const socket = connectSocket(Number(port), "127.0.0.1");
    let reply = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (reply += chunk));
    const head = `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: ${id}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`;
    try {
      socket.write(head);
      await sleep(30);
      socket.write(body.slice(0, 20));
      await sleep(30);
      socket.write(body.slice(20));
      for (let i = 0; i < 100 && !reply.includes("in pieces"); i++) await sleep(20);
      expect(reply).toMatch(/^HTTP\/1\.1 200/);
      expect(reply).toContain('"text":"in pieces"');
    } finally {
      socket.destroy();
    }
    const whole = await post(url, body.replace("in pieces", "at once"), { "mcp-session-id": id });
    expect(await whole.json()).toMatchObject({ id: 4, result: { content: [{ type: "text", text: "at once" }] } });
  });

  it("a wrong Accept: 406; a wrong Content-Type: 415; an unknown method: 405 or -32601", async () => {
    const { url } = await serve();
    expect((await post(url, initialize, { accept: "application/json" })).status).toBe(406);
    expect((await post(url, initialize, { "content-type": "text/plain" })).status).toBe(415);
    expect((await fetch(url, { method: "PUT" })).status).toBe(405);
    expect((await fetch(url, { headers: { accept: "application/json" } })).status).toBe(406);
    const id = await session(url);
    const unknown = await post(url, JSON.stringify({ jsonrpc: "2.0", id: 4, method: "nope/nope" }), { "mcp-session-id": id });
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32601);
  });

  it("a request naming another host (DNS rebinding) is refused on loopback", async () => {
    const { url } = await serve();
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: "POST", headers: { host: "evil.example:80", "content-type": "application/json" } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end(initialize);
    });
    expect(status).toBe(403);
  });

  it("per-session limits: requests in flight beyond the limit get 429, sessions beyond the limit 503", async () => {
    const { url } = await serve(undefined, { maxInFlightPerSession: 1, maxSessions: 1 });
    const id = await session(url);
    const slow = post(url, JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "echo__slow", arguments: { ms: 300 } } }), {
      "mcp-session-id": id,
    });
    await new Promise((r) => setTimeout(r, 100));
    const second = await post(url, JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping" }), { "mcp-session-id": id });
    expect(second.status).toBe(429);
    expect((await slow).status).toBe(200);
    expect((await post(url, initialize)).status).toBe(503);
  });

  it("2026 listens beyond maxSessions get 503 with Retry-After; one closing makes room", async () => {
    const { url } = await serve(undefined, { maxSessions: 1 });
    const first = new AbortController();
    const open = await postListen(url, 1, { toolsListChanged: true }, first.signal);
    expect(open.status).toBe(200);
    const refused = await postListen(url, 2, { toolsListChanged: true }, new AbortController().signal);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toMatchObject({ id: 2, error: { message: expect.stringContaining("listens") } });
    first.abort();
    const later = new AbortController();
    await expect
      .poll(async () => {
        const again = await postListen(url, 3, { toolsListChanged: true }, later.signal);
        if (again.status !== 200) await again.body?.cancel();
        return again.status;
      })
      .toBe(200);
    later.abort();
  });

  it("an idle session is closed after sessionIdleMs", async () => {
    const gateway = await serve(undefined, { sessionIdleMs: 100 });
    const id = await session(gateway.url);
    expect(gateway.sessions).toBe(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(gateway.sessions).toBe(0);
    expect((await post(gateway.url, JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }), { "mcp-session-id": id })).status).toBe(404);
  });
});
