/**
 * The network edges a user meets that the SDK's servers never show: auth headers (static and rotating),
 * refusals that must name the URL, the status and the start of the body, a server without the GET
 * stream, an SSE endpoint on another origin, a WebSocket peer that stops answering pings.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { connect, TransportError, type McpClient } from "../../src/index.js";
import { WebSocketTransport } from "../../src/transports/websocket.js";
import { startRawMcpHttp } from "../fixtures/raw-mcp-http.js";

let cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});
function later(cleanup: () => Promise<unknown>): void {
  cleanups.push(cleanup);
}
async function connected(...args: Parameters<typeof connect>): Promise<McpClient> {
  const client = await connect(...args);
  later(() => client.close());
  return client;
}

describe("Streamable HTTP auth", () => {
  it("sends a bearer token on every request", async () => {
    const server = await startRawMcpHttp();
    later(server.close);
    const client = await connected({ url: server.url, auth: { token: "s3cret" } }, { protocol: "legacy" });
    await client.callTool("echo", { a: 1 });
    const posts = server.requests.filter((r) => r.method === "POST");
    expect(posts.length).toBeGreaterThanOrEqual(3);
    expect(posts.every((r) => r.headers.authorization === "Bearer s3cret")).toBe(true);
  });

  it("asks a header provider for each request, so a rotated token is used at once", async () => {
    const server = await startRawMcpHttp();
    later(server.close);
    let generation = 0;
    const client = await connected(
      { url: server.url, auth: () => ({ Authorization: `Bearer token-${generation}`, "X-Tenant": "acme" }) },
      { protocol: "legacy" },
    );
    generation = 1;
    await client.callTool("echo", {});
    generation = 2;
    await client.callTool("echo", {});
    const calls = server.requests.filter((r) => r.rpc === "tools/call");
    expect(calls.map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-2"]);
    expect(calls.every((r) => r.headers["x-tenant"] === "acme")).toBe(true);
  });
});

describe("Streamable HTTP refusals", () => {
  it("names the URL, the status and the bounded start of the body", async () => {
    const body = `upstream exploded: ${"x".repeat(5000)}`;
    const server = await startRawMcpHttp((r) => (r.rpc === "tools/call" ? { status: 502, body, headers: { "content-type": "text/plain" } } : undefined));
    later(server.close);
    const client = await connected({ url: server.url }, { protocol: "legacy" });
    const error = await client.callTool("echo", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransportError);
    const failure = error as TransportError;
    expect(failure.message).toContain(`POST ${server.url} answered HTTP 502 (bad gateway): upstream exploded: xxx`);
    expect(failure.message.length).toBeLessThan(1000);
    expect(failure.retryable).toBe(true);
  });

  it("a 401 says to check the token", async () => {
    const server = await startRawMcpHttp(() => ({ status: 401, body: "no token" }));
    later(server.close);
    const error = (await connect({ url: server.url }, { protocol: "legacy" }).catch((e: Error) => e)) as Error;
    expect(error.message).toMatch(/answered HTTP 401 \(unauthorized: check the token or headers\): no token/);
  });

  it("a server without the GET stream (405) is fine: no error is reported", async () => {
    const server = await startRawMcpHttp();
    later(server.close);
    const errors: Error[] = [];
    const client = await connected({ url: server.url }, { protocol: "legacy" });
    client.on("error", (e) => errors.push(e));
    await client.callTool("echo", {});
    expect(server.requests.some((r) => r.method === "GET")).toBe(true);
    expect(errors).toEqual([]);
  });
});

/** An HTTP server on 127.0.0.1, closed after the test; resolves with its origin. */
async function serveHttp(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  later(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A 2024-11-05 HTTP+SSE server: GET opens the stream and names /messages as the endpoint; POSTs there
 * are answered on the stream; any other POST gets 404 (neither 2026 nor Streamable HTTP). Records each
 * request as "METHOD path authorization".
 */
async function oldSseServer(): Promise<{ origin: string; seen: string[] }> {
  const seen: string[] = [];
  let stream: http.ServerResponse | undefined;
  const origin = await serveHttp((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "(none)"}`);
    if (req.method === "GET") {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: endpoint\ndata: /messages\n\n");
      stream = res;
      return;
    }
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      if (req.url !== "/messages") return void res.writeHead(404).end();
      res.writeHead(202).end();
      const message = JSON.parse(text);
      if (message.method === "initialize") {
        stream?.write(
          `data: ${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: "2024-11-05", capabilities: {}, serverInfo: { name: "old-sse", version: "1" } } })}\n\n`,
        );
      }
    });
  });
  return { origin, seen };
}

describe("legacy HTTP+SSE", () => {
  it("refuses an endpoint on another origin", async () => {
    const origin = await serveHttp((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("event: endpoint\ndata: http://evil.example.com/messages\n\n");
    });
    const url = `${origin}/sse`;
    const error = (await connect({ url, type: "sse" }, { protocol: "legacy" }).catch((e: Error) => e)) as Error;
    expect(error.message).toBe(`${url} named an endpoint on another origin (http://evil.example.com); refused`);
  });

  it("sends the auth header on the stream and on every POST", async () => {
    const { origin, seen } = await oldSseServer();
    await connected({ url: `${origin}/sse`, type: "sse", auth: { token: "t0k" } }, { protocol: "2024-11-05" });
    expect(seen).toHaveLength(3); // GET, initialize, initialized
    expect(seen.every((line) => line.endsWith("Bearer t0k"))).toBe(true);
  });
});

describe("the 2026-era probe's fallback to HTTP+SSE", () => {
  it("keeps the auth of the URL target on the fallback transport", async () => {
    const { origin, seen } = await oldSseServer();
    const client = await connected({ url: `${origin}/mcp`, auth: { token: "fallback-token" } });
    expect(client.connection.transport.kind).toBe("sse");
    expect(seen.length).toBeGreaterThanOrEqual(4); // probe, initialize, GET, initialize on /messages, ...
    expect(seen.every((line) => line.endsWith("Bearer fallback-token"))).toBe(true);
  });
});

describe("WebSocket keep-alive", () => {
  it("drops a peer that stops answering pings, with a message that says so", async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, autoPong: false, handleProtocols: () => "mcp" });
    await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
    later(
      () =>
        new Promise((resolve) => {
          for (const socket of wss.clients) socket.terminate();
          wss.close(resolve);
        }),
    );
    let headers: http.IncomingHttpHeaders | undefined;
    wss.on("connection", (socket, request) => {
      headers = request.headers;
      socket.on("message", (data) => {
        const message = JSON.parse(data.toString());
        if (message.method === "initialize") {
          socket.send(
            JSON.stringify({
              jsonrpc: "2.0",
              id: message.id,
              result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "mute", version: "1" } },
            }),
          );
        }
      });
    });
    const port = (wss.address() as AddressInfo).port;
    const transport = new WebSocketTransport({ url: `ws://127.0.0.1:${port}/mcp`, pingIntervalMs: 30, pongTimeoutMs: 60, auth: { token: "ws-token" } });
    const client = await connected(transport, { protocol: "legacy" });
    expect(headers?.authorization).toBe("Bearer ws-token");
    const errors: string[] = [];
    client.on("error", (e) => errors.push(e.message));
    const closed = await new Promise<Error | undefined>((resolve) => client.on("close", resolve));
    expect(errors.some((m) => /did not answer a ping within 60 ms; dropping the connection/.test(m))).toBe(true);
    expect(closed?.message).toMatch(/WebSocket ws:\/\/127\.0\.0\.1:\d+\/mcp: /);
    expect(client.state).toBe("failed");
  });
});
