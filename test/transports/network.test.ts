/**
 * The network transports through connect(), against real peers: the SDK's Streamable HTTP server
 * (stateful with an event store, and stateless), its legacy SSE server, and a WebSocket server.
 * Plus the faults networks have: a stream cut mid-call (resumed with Last-Event-ID), an expired session.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connect, SessionExpiredError, type McpClient } from "../../src/index.js";
import type { StreamableHttpTransport } from "../../src/transports/streamable-http.js";
import { startCuttingProxy, startLegacySseServer, startStreamableHttpServer, startWebSocketServer, type RunningServer } from "../fixtures/http-servers.js";

let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});
function track<T extends RunningServer | McpClient>(thing: T): T {
  cleanups.push(() => thing.close());
  return thing;
}

const handlers = {
  onSampling: async (params: { messages: { content: { type: string; text?: string } }[] }) => ({
    role: "assistant" as const,
    model: "test-model",
    content: { type: "text" as const, text: `you asked: ${params.messages[0].content.text}` },
  }),
  roots: [{ uri: "file:///work", name: "work" }],
};

async function exercise(client: McpClient): Promise<void> {
  expect(client.state).toBe("ready");
  expect((await client.listTools()).map((t) => t.name)).toContain("echo");
  expect((await client.callTool("echo", { text: "over the wire ✓" })).content[0]).toEqual({ type: "text", text: "over the wire ✓" });
  const progress: number[] = [];
  await client.callTool("progress", { steps: 3, delayMs: 5 }, { onProgress: (p) => progress.push(p.progress) });
  expect(progress).toEqual([1, 2, 3]);
  // A server-to-client request, answered by the client's handler, inside a tool call.
  expect((await client.callTool("ask_model", { question: "2+2?" })).content[0]).toMatchObject({ text: "you asked: 2+2?" });
  expect((await client.callTool("client_roots")).content[0]).toMatchObject({ text: "file:///work" });
}

describe("Streamable HTTP", () => {
  it("stateful with an event store: session, protocol header, server-to-client requests, DELETE on close", async () => {
    const server = track(await startStreamableHttpServer({ stateful: true, eventStore: true }));
    const client = await connect({ url: server.url }, { protocol: "legacy", ...handlers } as never);
    await exercise(client);
    const transport = client.connection.transport as StreamableHttpTransport;
    expect(transport.sessionId).toMatch(/[0-9a-f-]{36}/);
    const afterInit = server.requests.filter((r) => r.method === "POST" && r.rpc !== "initialize");
    expect(afterInit.every((r) => r.session === transport.sessionId && r.protocol === "2025-11-25")).toBe(true);
    expect(server.requests.some((r) => r.method === "GET")).toBe(true); // the standalone stream
    const session = transport.sessionId;
    await client.close();
    expect(server.requests.at(-1)).toMatchObject({ method: "DELETE", session });
  });

  it("stateless", async () => {
    const server = track(await startStreamableHttpServer({ stateful: false }));
    const client = track(await connect({ url: server.url, type: "streamable-http" }, { protocol: "legacy", ...handlers } as never));
    expect((await client.listTools()).length).toBeGreaterThan(3);
    expect((await client.callTool("add", { a: 2, b: 40 })).content[0]).toMatchObject({ text: "42" });
    expect((client.connection.transport as StreamableHttpTransport).sessionId).toBeUndefined();
  });

  it("checklist 27 (2025 era): resumes a stream cut mid-call with Last-Event-ID: remaining progress and the result arrive exactly once", async () => {
    const server = track(await startStreamableHttpServer({ stateful: true, eventStore: true, retryMs: 50 }));
    const proxy = track(await startCuttingProxy(server.port, "notifications/progress", 2));
    const client = track(await connect({ url: proxy.url }, { protocol: "legacy" }));
    const errors: string[] = [];
    client.on("error", (e) => errors.push(e.message));
    const progress: number[] = [];
    const result = await client.callTool("progress", { steps: 6, delayMs: 60 }, { onProgress: (p) => progress.push(p.progress) });
    expect(result.content[0]).toMatchObject({ text: "done" });
    expect(proxy.cuts()).toBe(1);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6]);
    expect(server.requests.some((r) => r.method === "GET" && r.lastEventId !== undefined)).toBe(true);
    expect(errors.some((e) => /Resumed the event stream/.test(e))).toBe(true);
  });

  it("starts a new session when the server forgets the old one, and the refused call goes through", async () => {
    const server = track(await startStreamableHttpServer({ stateful: true }));
    const client = track(await connect({ url: server.url }, { protocol: "legacy" }));
    const first = (client.connection.transport as StreamableHttpTransport).sessionId;
    server.forgetSessions();
    expect((await client.callTool("echo", { text: "still here" })).content[0]).toMatchObject({ text: "still here" });
    const second = (client.connection.transport as StreamableHttpTransport).sessionId;
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(server.requests.filter((r) => r.rpc === "initialize")).toHaveLength(2);
    expect(client.state).toBe("ready");
    expect(SessionExpiredError).toBeDefined();
  });

  it("names the URL and the status when the server refuses", async () => {
    const server = track(await startStreamableHttpServer({ stateful: true }));
    const error = await connect({ url: server.url.replace("/mcp", "/nowhere"), headers: { "x-test": "1" } }, { protocol: "legacy" }).catch((e) => e);
    // The fixture answers 400 to anything that is not an initialize on a new session; a wrong path still reaches it.
    expect(error).toBeDefined();
    const refused = await connect({ url: "http://127.0.0.1:1/mcp" }, { protocol: "legacy" }).catch((e) => e);
    expect(refused.message).toMatch(/http:\/\/127\.0\.0\.1:1\/mcp failed: connection refused \(ECONNREFUSED\)/);
    expect(refused.delivered).toBe(false);
  });
});

describe("legacy HTTP+SSE", () => {
  it("connects through the endpoint event and works end to end", async () => {
    const server = track(await startLegacySseServer());
    const client = track(await connect({ url: server.url, type: "sse" }, { protocol: "legacy", ...handlers } as never));
    await exercise(client);
  });
});

describe("WebSocket", () => {
  it("speaks MCP over the mcp subprotocol, and reports the server going away", async () => {
    const server = await startWebSocketServer();
    const client = await connect({ url: server.url }, { protocol: "legacy", ...handlers } as never);
    await exercise(client);
    const closed = new Promise<Error | undefined>((resolve) => client.on("close", resolve));
    await server.close();
    const error = await closed;
    expect(error?.message).toMatch(/WebSocket ws:\/\/127\.0\.0\.1:\d+\/mcp: the connection dropped \(no close frame\) \(code 1006\)/);
    await client.close();
  });

  it("fails the handshake clearly when nothing listens", async () => {
    const error = await connect({ url: "ws://127.0.0.1:1/mcp" }).catch((e) => e);
    expect(error.message).toMatch(/WebSocket connection to ws:\/\/127\.0\.0\.1:1\/mcp failed/);
  });
});
