/**
 * The Streamable HTTP transport on undici (src/transports/undici-exchange.ts): one pool per origin,
 * sized from the target's `connections` (a Switchboard entry's maxConcurrency), no pipelining; a
 * request abandoned while it still waits for a socket fails at once and never reaches the server; a
 * JSON body in many chunks is whole; an SSE reply split mid-event is decoded whole; close() lets go of
 * every socket.
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { connect, ConfigError, RequestTimeoutError } from "../../src/index.js";
import { parseConfig, targetOf } from "../../src/switchboard/config.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { waitFor } from "../helpers/processes.js";
import { startHostileHttp } from "../fixtures/hostile-http.js";

const track = closeAfterEach();

/** A server whose `hang` calls are held (one socket each, no pipelining); `held` are their responses. */
async function holdingServer() {
  const held = new Set<ServerResponse>();
  const server = track(
    await startHostileHttp(({ body, res }) => {
      if (body?.method !== "tools/call" || body.params?.name !== "hang") return false;
      held.add(res);
      res.on("close", () => held.delete(res));
      return true;
    }),
  );
  return { server, held };
}

const hangs = (server: { requests: { body?: { params?: Record<string, unknown> } }[] }) =>
  server.requests.filter((r) => r.body?.params?.name === "hang").length;

describe("Streamable HTTP on undici", () => {
  it("sizes the pool from `connections`: 5 held calls take 2 sockets, the rest wait in the pool and never reach the server", async () => {
    const { server, held } = await holdingServer();
    const client = track(await connect({ url: server.url, connections: 2 }, { protocol: "legacy" }));
    // Two calls hold both sockets for longer than the three after them wait: those three can only
    // ever wait in the pool (with one deadline for all five, a socket freed by the first two could
    // reach a waiting call before its own deadline was seen on a loaded machine).
    const holding = Array.from({ length: 2 }, () => client.callTool("hang", {}, { timeoutMs: 3000 }).catch((e: unknown) => e));
    await waitFor(() => held.size === 2);
    const waiting = Array.from({ length: 3 }, () => client.callTool("hang", {}, { timeoutMs: 300 }).catch((e: unknown) => e));
    const waited = await Promise.all(waiting);
    expect(waited.every((e) => e instanceof RequestTimeoutError)).toBe(true);
    // The three that waited for a socket were dropped before they had one: the server never saw them.
    expect(hangs(server)).toBe(2);
    expect(held.size).toBe(2);
    const errors = await Promise.all(holding);
    expect(errors.every((e) => e instanceof RequestTimeoutError)).toBe(true);
    expect(hangs(server)).toBe(2);
    await waitFor(() => held.size === 0, 2000);
    expect((await client.callTool("echo", { after: "queue" }, { timeoutMs: 5000 })).content).toEqual([{ type: "text", text: '{"after":"queue"}' }]);
    await client.close();
    await waitFor(() => server.openSockets() === 0, 2000);
  });

  it("a Switchboard entry's maxConcurrency sizes its pool, with 2 sockets for requests that are not calls; an unlimited one keeps the default", () => {
    const { servers } = parseConfig({ mcpServers: { a: { url: "http://127.0.0.1:9/mcp", maxConcurrency: 3 }, b: { url: "http://127.0.0.1:9/mcp" } } });
    expect(targetOf(servers.a)).toMatchObject({ connections: 5 });
    expect(targetOf(servers.b)).not.toHaveProperty("connections");
  });

  it("refuses `connections` that is not a whole number of at least 1, naming the field", async () => {
    for (const connections of [0, 1.5, -1, Number.NaN]) {
      await expect(connect({ url: "http://127.0.0.1:9/mcp", connections })).rejects.toThrow(ConfigError);
      await expect(connect({ url: "http://127.0.0.1:9/mcp", connections })).rejects.toThrow(/connections/);
    }
  });

  it("a JSON body in many small chunks and an SSE reply split mid-event arrive whole", async () => {
    const text = "x".repeat(5000);
    const server = track(
      await startHostileHttp(({ body, res }) => {
        if (body?.method !== "tools/call") return false;
        const reply = JSON.stringify({ jsonrpc: "2.0", id: body.id, result: { content: [{ type: "text", text }] } });
        const sse = body.params?.name === "sse";
        const payload = sse ? `id: 1\ndata: ${reply}\n\n` : reply;
        res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/json" });
        let at = 0;
        const step = () => {
          if (at >= payload.length) return void res.end();
          res.write(payload.slice(at, (at += 700)));
          setImmediate(step);
        };
        step();
        return true;
      }),
    );
    const client = track(await connect({ url: server.url }, { protocol: "legacy" }));
    expect((await client.callTool("json", {}, { timeoutMs: 5000 })).content).toEqual([{ type: "text", text }]);
    expect((await client.callTool("sse", {}, { timeoutMs: 5000 })).content).toEqual([{ type: "text", text }]);
  });
});
