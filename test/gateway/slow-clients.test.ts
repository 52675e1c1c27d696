/**
 * A client that opens an event stream and stops reading must not make the gateway hold what is sent to
 * it (node:http buffers a response's writes without limit): `maxUnreadBytes` bounds each stream.
 * The floods are larger than loopback's socket buffers (several MiB), so what the kernel does not take
 * stays in the gateway, which is what the limit is about.
 */
import { connect as connectSocket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { gatewaysAfterEach, initialize, post } from "./helpers.js";

const { serve, track } = gatewaysAfterEach();

const FRAME = 5_000;
const FLOOD = 4_000; // about 20 MB
const LONG_URI = `test://big/${"x".repeat(50_000)}`;

/** An upstream whose `flood` tool sends `count` progress notifications, and whose one resource (a 50 KB URI) can be updated at will. */
async function floodServer() {
  const servers: McpServer[] = [];
  const upstream = await startStreamableHttpServer({
    stateful: true,
    createServer: () => {
      const server = new McpServer({ name: "flood", version: "1" }, { capabilities: { logging: {}, resources: { subscribe: true } } });
      server.registerTool("flood", { inputSchema: { count: z.number() } }, async ({ count }, extra) => {
        const message = "x".repeat(FRAME);
        for (let progress = 1; progress <= count; progress++)
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: extra._meta!.progressToken!, progress, total: count, message },
          });
        return { content: [{ type: "text", text: `sent ${count}` }] };
      });
      server.registerResource("big", LONG_URI, { mimeType: "text/plain" }, async (uri) => ({ contents: [{ uri: uri.href, text: "b" }] }));
      server.server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
      server.server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));
      servers.push(server);
      return server;
    },
  });
  track(upstream);
  return { upstream, updated: (uri: string) => servers.at(-1)!.server.sendResourceUpdated({ uri }) };
}

/** A raw request on its own connection; resolves once the response's first bytes came, then reads no more. */
async function stalledRequest(url: string, head: string, body = "") {
  const { port } = new URL(url);
  const socket = connectSocket(Number(port), "127.0.0.1");
  track({ close: async () => void socket.destroy() });
  const seen = { bytes: 0, text: "", cut: false, events: 0 };
  let partial = "";
  // Counts whole events as they come (matching over 20 MB of text at each poll would starve the loop).
  const take = (chunk: string) => {
    seen.bytes += Buffer.byteLength(chunk);
    seen.text += chunk;
    const events = (partial + chunk).split("\n\n");
    partial = events.pop()!;
    seen.events += events.filter((event) => event.includes("data: ")).length;
  };
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    take(chunk);
    socket.pause();
  });
  socket.once("close", () => (seen.cut = true));
  socket.write(`${head.replace("HOST", `127.0.0.1:${port}`)}\r\n${body}`);
  await expect.poll(() => seen.bytes).toBeGreaterThan(0);
  return {
    seen,
    /** Reads again, until the stream ends or 100 ms pass with nothing new. */
    received: async () => {
      socket.removeAllListeners("data").on("data", take);
      socket.resume();
      let last = -1;
      for (let i = 0; i < 100 && !seen.cut && seen.bytes !== last; i++) {
        last = seen.bytes;
        await sleep(100);
      }
      return seen;
    },
  };
}

async function session(url: string): Promise<string> {
  const response = await post(url, initialize);
  const id = response.headers.get("mcp-session-id")!;
  await response.text();
  await post(url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { "mcp-session-id": id });
  return id;
}

const headers = (id: string) => ({ "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" });
const flood = (id: number, count = FLOOD) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "flood__flood", arguments: { count }, _meta: { progressToken: `p${id}` } } });
const UPDATES = 400; // of 50 KB each, about 20 MB

describe("a client that stops reading an event stream costs the gateway at most maxUnreadBytes on it", () => {
  it("a GET stream further behind than maxUnreadBytes is cut; a session that reads gets every message", async () => {
    const { upstream, updated } = await floodServer();
    const gateway = await serve({ servers: { flood: { url: upstream.url } } }, { maxUnreadBytes: 2 * 1024 * 1024 });
    const stalled = await session(gateway.url);
    const reading = await session(gateway.url);
    for (const id of [stalled, reading]) {
      const subscribe = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: LONG_URI } });
      expect((await post(gateway.url, subscribe, headers(id))).status).toBe(200);
    }
    const get = (id: string) => `GET /mcp HTTP/1.1\r\nhost: HOST\r\naccept: text/event-stream\r\nmcp-session-id: ${id}\r\nmcp-protocol-version: 2025-11-25\r\n`;
    const stuck = await stalledRequest(gateway.url, get(stalled));
    const live = await stalledRequest(gateway.url, get(reading));
    const readAll = live.received();
    // Paced to the reading client, which shares this process's event loop with the flood: it stays
    // within 10 frames (500 KB) of it, well inside the limit, while the stalled one falls 20 MB behind.
    for (let i = 1; i <= UPDATES; i++) {
      await updated(LONG_URI);
      if (i % 10 === 0) await expect.poll(() => live.seen.events, { timeout: 10_000, interval: 5 }).toBeGreaterThanOrEqual(i);
    }
    expect(live.seen.events).toBe(UPDATES);
    await readAll;
    expect(live.seen.cut).toBe(false);
    const cut = await stuck.received();
    expect(cut.cut).toBe(true);
    // What the kernel's buffers took, plus at most the limit and one frame: well under the 20 MB sent.
    expect(cut.bytes).toBeLessThan(UPDATES * LONG_URI.length * 0.75);
    // The session lives on: a client that reads again reconnects, with Last-Event-ID to get what it missed.
    const seen = [...cut.text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    const again = await fetch(gateway.url, { headers: { accept: "text/event-stream", "last-event-id": String(seen.at(-1)), ...headers(stalled) } });
    expect(again.status).toBe(200);
    const reader = again.body!.getReader();
    const replay = new TextDecoder().decode((await reader.read()).value);
    expect(Number(/^id: (\d+)$/m.exec(replay)![1])).toBeGreaterThan(seen.at(-1)!);
    await reader.cancel();
  });

  it("a request's stream drops progress while its client is behind, and still ends with the reply", async () => {
    const { upstream } = await floodServer();
    const gateway = await serve({ servers: { flood: { url: upstream.url } } }, { maxUnreadBytes: 256 * 1024 });
    const id = await session(gateway.url);
    const body = flood(4);
    const head =
      `POST /mcp HTTP/1.1\r\nhost: HOST\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
      `mcp-session-id: ${id}\r\nmcp-protocol-version: 2025-11-25\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
    const stuck = await stalledRequest(gateway.url, head, body);
    // The call runs to its end while the client reads nothing; then it reads what was kept.
    await sleep(500);
    const { bytes, text } = await stuck.received();
    expect(text).toContain(`"result":{"content":[{"type":"text","text":"sent ${FLOOD}"}]}`);
    const progress = text.match(/notifications\/progress/g)?.length ?? 0;
    expect(progress).toBeGreaterThan(0);
    expect(progress).toBeLessThan(FLOOD);
    expect(bytes).toBeLessThan(FLOOD * FRAME * 0.75);
  });

  it("a 2026 listen further behind than maxUnreadBytes is cut, and a new listen hears again", async () => {
    const { upstream, updated } = await floodServer();
    const gateway = await serve({ servers: { flood: { url: upstream.url } } }, { maxUnreadBytes: 256 * 1024 });
    const listen = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "subscriptions/listen",
        params: {
          notifications: { resourceSubscriptions: [LONG_URI] },
          _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} },
        },
      });
    const head = (body: string) =>
      `POST /mcp HTTP/1.1\r\nhost: HOST\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
      `mcp-protocol-version: 2026-07-28\r\nmcp-method: subscriptions/listen\r\ncontent-length: ${Buffer.byteLength(body)}\r\n`;
    const stuck = await stalledRequest(gateway.url, head(listen(1)), listen(1));
    // Wait for the acknowledgement (the subscription is in place), which may come after the headers.
    await sleep(300);
    for (let i = 0; i < UPDATES; i++) await updated(LONG_URI);
    await sleep(300);
    const { bytes, cut } = await stuck.received();
    expect(cut).toBe(true);
    expect(bytes).toBeLessThan(UPDATES * LONG_URI.length * 0.75);

    const fresh = await stalledRequest(gateway.url, head(listen(2)), listen(2));
    await fresh.received();
    await updated(LONG_URI);
    await expect.poll(() => fresh.seen.text.includes("notifications/resources/updated"), { timeout: 3_000 }).toBe(true);
  });
});
