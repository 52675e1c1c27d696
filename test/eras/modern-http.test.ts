/**
 * The 2026 era over Streamable HTTP against a scripted endpoint on 127.0.0.1: headers, header value
 * encoding and x-mcp-header mirroring, -32020 recovery, the HTTP probe's classification and fallbacks,
 * cancellation by abort, lost streams re-issued with a new id, and no sessions.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connect, McpClient, StreamLostError, TransportError } from "../../src/index.js";
import { MODERN_DISCOVER, result, rpcError, startScriptedHttp, type Recorded, type Reply, type ScriptedHttp } from "../fixtures/scripted-http.js";
import { startLegacySseServer, startStreamableHttpServer } from "../fixtures/http-servers.js";
import { waitFor } from "../helpers/processes.js";

let clients: McpClient[] = [];
let servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(script: (request: Recorded) => Reply | Promise<Reply>): Promise<ScriptedHttp> {
  const server = await startScriptedHttp(script);
  servers.push(server);
  return server;
}

async function open(url: string, options: Parameters<typeof connect>[1] = {}): Promise<McpClient> {
  const client = await connect({ url }, options);
  clients.push(client);
  return client;
}

const LEGACY_INIT = { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "old-http", version: "1" } };

/** A 2026 server: discover, tools with x-mcp-header, echo calls. */
function modernScript(overrides: Record<string, (request: Recorded) => Reply | undefined> = {}) {
  return (request: Recorded): Reply => {
    const method = request.body?.method;
    if (request.method !== "POST") return { status: 405 };
    if (method !== undefined && overrides[method]) {
      const reply = overrides[method](request);
      if (reply) return reply;
    }
    switch (method) {
      case "server/discover":
        return result(request, MODERN_DISCOVER);
      case "tools/list":
        return result(request, {
          resultType: "complete",
          ttlMs: 1000,
          cacheScope: "public",
          tools: [
            {
              name: "weather",
              inputSchema: {
                type: "object",
                properties: {
                  region: { type: "string", "x-mcp-header": "Region" },
                  opts: {
                    type: "object",
                    properties: { days: { type: "integer", "x-mcp-header": "Days" }, fast: { type: "boolean", "x-mcp-header": "Fast" } },
                  },
                },
              },
            },
            { name: "bad_number", inputSchema: { type: "object", properties: { n: { type: "number", "x-mcp-header": "N" } } } },
            { name: "bad_items", inputSchema: { type: "object", properties: { list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } } } },
            {
              name: "bad_twice",
              inputSchema: { type: "object", properties: { a: { type: "string", "x-mcp-header": "Dup" }, b: { type: "string", "x-mcp-header": "dup" } } },
            },
            { name: "plain", inputSchema: { type: "object" } },
          ],
        });
      case "tools/call":
      case "prompts/get":
      case "resources/read":
        return result(request, { resultType: "complete", content: [{ type: "text", text: "ok" }], contents: [], messages: [] });
      default:
        return rpcError(request, 404, -32601, "Method not found");
    }
  };
}

describe("2026 era over Streamable HTTP", () => {
  it("checklist 4: MCP-Protocol-Version equals the _meta version, Mcp-Method is on every request, Mcp-Name on tools/call, prompts/get and resources/read", async () => {
    const server = await serve(modernScript());
    const client = await open(server.url, { enforceCapabilities: false });
    expect(client.era).toBe("modern");
    await client.listTools();
    await client.callTool("plain", {});
    await client.getPrompt("greet");
    await client.readResource("file:///a.txt");
    for (const request of server.posts()) {
      const version = (request.body!.params!._meta as Record<string, unknown>)["io.modelcontextprotocol/protocolVersion"];
      expect(request.headers["mcp-protocol-version"]).toBe(version);
      expect(request.headers["mcp-method"]).toBe(request.body!.method);
    }
    expect(server.posts("tools/call")[0].headers["mcp-name"]).toBe("plain");
    expect(server.posts("prompts/get")[0].headers["mcp-name"]).toBe("greet");
    expect(server.posts("resources/read")[0].headers["mcp-name"]).toBe("file:///a.txt");
    expect(server.posts("tools/list")[0].headers["mcp-name"]).toBeUndefined();
  });

  it("checklist 5: an Mcp-Name or Mcp-Param value with non-ASCII or edge whitespace goes out base64-wrapped", async () => {
    const server = await serve(modernScript());
    const client = await open(server.url);
    await client.listTools();
    await client.callTool("plain", {}).catch(() => {});
    await client.request("tools/call", { name: "wëather ", arguments: {} });
    await client.callTool("weather", { region: " eu" });
    expect(server.posts("tools/call")[1].headers["mcp-name"]).toBe(`=?base64?${Buffer.from("wëather ").toString("base64")}?=`);
    expect(server.posts("tools/call")[2].headers["mcp-param-region"]).toBe(`=?base64?${Buffer.from(" eu").toString("base64")}?=`);
  });

  it("checklist 6: x-mcp-header arguments are mirrored (null or absent: no header); tools with invalid annotations are dropped with a warning", async () => {
    const server = await serve(modernScript());
    const client = await open(server.url);
    const warnings: string[] = [];
    client.on("error", (e) => warnings.push(e.message));
    const tools = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["weather", "plain"]);
    expect(warnings.join("\n")).toMatch(/"bad_number" dropped.*only string, integer and boolean/);
    expect(warnings.join("\n")).toMatch(/"bad_items" dropped.*not reachable through "properties"/);
    expect(warnings.join("\n")).toMatch(/"bad_twice" dropped.*declared twice/);
    await client.callTool("weather", { region: "eu-west", opts: { days: 3, fast: false } });
    await client.callTool("weather", { region: null, opts: {} });
    const [first, second] = server.posts("tools/call");
    expect(first.headers).toMatchObject({ "mcp-param-region": "eu-west", "mcp-param-days": "3", "mcp-param-fast": "false" });
    expect(second.headers["mcp-param-region"]).toBeUndefined();
    expect(second.headers["mcp-param-days"]).toBeUndefined();
  });

  it("checklist 7: on -32020 the client re-fetches tools/list and retries the call once", async () => {
    let refusals = 0;
    const server = await serve(
      modernScript({
        "tools/call": (request) => (refusals++ < 1 ? rpcError(request, 400, -32020, "Header mismatch: Mcp-Param-Region") : undefined),
      }),
    );
    const client = await open(server.url);
    await client.listTools();
    const answer = await client.callTool("weather", { region: "eu" });
    expect(answer.content).toEqual([{ type: "text", text: "ok" }]);
    expect(server.posts("tools/list")).toHaveLength(2);
    const calls = server.posts("tools/call");
    expect(calls).toHaveLength(2);
    expect(calls[0].body!.id).not.toEqual(calls[1].body!.id);
    // A second mismatch is not retried again.
    const stubborn = await serve(modernScript({ "tools/call": (request) => rpcError(request, 400, -32020, "Header mismatch") }));
    const other = await open(stubborn.url);
    await expect(other.callTool("weather", { region: "eu" })).rejects.toMatchObject({ code: -32020 });
    expect(stubborn.posts("tools/call")).toHaveLength(2);
  });

  it("checklist 7: a -32020 tells the caches above the connection: toolsChanged fires and the cached tool list is dropped", async () => {
    let refusals = 0;
    const server = await serve(
      modernScript({
        "tools/call": (request) => (refusals++ < 1 ? rpcError(request, 400, -32020, "Header mismatch: Mcp-Param-Region") : undefined),
      }),
    );
    const client = await open(server.url);
    let changed = 0;
    client.on("toolsChanged", () => changed++);
    await client.listTools();
    await client.listTools(); // served from the cache (ttlMs 1000)
    expect(server.posts("tools/list")).toHaveLength(1);
    await client.callTool("weather", { region: "eu" });
    expect(changed).toBe(1);
    expect(server.posts("tools/list")).toHaveLength(2); // the dialect's own re-fetch
    await client.listTools();
    expect(server.posts("tools/list")).toHaveLength(3); // the client's cached copy was dropped too
  });

  it.each([
    ["400 with a plain-text body", { status: 400, text: "Bad Request: Unsupported protocol version" }],
    ["404 with an empty body", { status: 404 }],
    ["405 with an empty body", { status: 405 }],
    [
      "400 with a non-modern JSON-RPC error",
      { status: 400, json: { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: Server not initialized" } } },
    ],
  ])("checklist 10: a probe answered %s falls back to initialize", async (_name, probeReply) => {
    const server = await serve((request) => {
      if (request.body?.method === "server/discover") return probeReply;
      if (request.body?.method === "initialize") return result(request, LEGACY_INIT);
      if (request.method === "GET") return { status: 405 };
      return { status: 202 };
    });
    const client = await open(server.url);
    expect(client.era).toBe("legacy");
    expect(server.posts().map((r) => r.body?.method)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
  });

  it("checklist 10: 401 is an auth failure and 5xx or a network error an outage, never a reason to fall back", async () => {
    for (const status of [401, 403, 500, 503]) {
      const server = await serve((request) => (request.body?.method === "initialize" ? result(request, LEGACY_INIT) : { status, text: "no" }));
      const error = await open(server.url).catch((e) => e);
      expect(error).toBeInstanceOf(TransportError);
      expect(error.status).toBe(status);
      expect(server.posts("initialize")).toHaveLength(0);
    }
    const gone = await serve(() => ({ status: 200 }));
    await gone.close();
    const refused = await open(gone.url).catch((e) => e);
    expect(refused).toBeInstanceOf(TransportError);
    expect(refused.message).toMatch(/connection refused|ECONNREFUSED/);
  });

  it("checklist 10: over HTTP a probe that gets no answer is an outage, not a 2025 server", async () => {
    const server = await serve((request) => (request.body?.method === "server/discover" ? { hang: true } : result(request, LEGACY_INIT)));
    const error = await open(server.url, { probeTimeoutMs: 100 }).catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    // Words a person can act on, with the URL (not the transport's internal key "http:http://...").
    expect(error.message).toBe(`no answer from ${server.url} within 100 ms: is it an MCP server? Check the URL and that it is running`);
    expect(server.posts("initialize")).toHaveLength(0);
  });

  it("checklist 11: when the legacy fallback also fails with 400/404/405, the client tries HTTP+SSE (GET, endpoint event)", async () => {
    const sse = await startLegacySseServer();
    servers.push(sse);
    const client = await open(sse.url);
    expect(client.era).toBe("legacy");
    expect(client.connection.transport.kind).toBe("sse");
    expect(client.serverInfo?.name).toBe("sse-server");
    expect((await client.callTool("echo", { text: "via sse" })).content).toEqual([{ type: "text", text: "via sse" }]);
  });

  it("checklist 11: when neither Streamable HTTP nor HTTP+SSE answers, the error says both were tried", async () => {
    const server = await serve(() => ({ status: 404 }));
    const error = await open(server.url).catch((e) => e);
    expect(error).toBeInstanceOf(TransportError);
    expect(error.message).toMatch(/server\/discover and initialize over Streamable HTTP failed.*HTTP\+SSE fallback failed too/);
    expect(server.requests.map((r) => `${r.method} ${r.body?.method ?? ""}`.trim())).toEqual(["POST server/discover", "POST initialize", "GET"]);
  });

  it("checklist 26: cancelling on HTTP aborts that request's exchange and POSTs no notifications/cancelled", async () => {
    const server = await serve(modernScript({ "tools/call": () => ({ hang: true }) }));
    const client = await open(server.url);
    const controller = new AbortController();
    const call = client.callTool("plain", {}, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 50));
    controller.abort();
    await expect(call).rejects.toThrow(/cancelled/);
    const timedOut = client.callTool("plain", {}, { timeoutMs: 80 });
    await expect(timedOut).rejects.toThrow(/within 80 ms/);
    // The server sees each abandoned request as its connection closes, a moment after the client gave up.
    const ids = server.posts("tools/call").map((r) => r.body!.id);
    await waitFor(() => server.abandoned.length >= ids.length, 5000);
    expect(server.abandoned).toEqual(ids);
    expect(server.posts("notifications/cancelled")).toHaveLength(0);
  });

  it("checklist 27: a broken 2026 stream is re-sent with a new id when safe (no Last-Event-ID); otherwise it fails as possibly delivered", async () => {
    let lists = 0;
    const server = await serve(
      modernScript({
        "tools/list": () => (lists++ === 0 ? { sse: [], end: "cut" } : undefined),
        "tools/call": (request) => ((request.body!.params as { name: string }).name === "plain" ? { sse: [], end: "cut" } : undefined),
      }),
    );
    const client = await open(server.url);
    const tools = await client.listTools();
    expect(tools.length).toBeGreaterThan(0);
    const listIds = server.posts("tools/list").map((r) => r.body!.id);
    expect(listIds).toHaveLength(2);
    expect(listIds[0]).not.toEqual(listIds[1]);
    expect(server.requests.some((r) => r.headers["last-event-id"] !== undefined)).toBe(false);
    const lost = await client.callTool("plain", {}).catch((e) => e);
    expect(lost).toBeInstanceOf(StreamLostError);
    expect(lost).toMatchObject({ delivered: true, retryable: true });
    expect(server.posts("tools/call")).toHaveLength(1);
    await client.callTool("plain", {}, { idempotent: true }).catch(() => {});
    expect(server.posts("tools/call")).toHaveLength(3); // the caller's say-so: one re-send
  });

  it("checklist 28: modern HTTP never sends Mcp-Session-Id, GET or DELETE; legacy HTTP keeps the session id and DELETEs it on close", async () => {
    const server = await serve(
      modernScript({
        "server/discover": (request) => ({
          status: 200,
          json: { jsonrpc: "2.0", id: request.body?.id, result: MODERN_DISCOVER },
          headers: { "mcp-session-id": "should-be-ignored" },
        }),
      }),
    );
    const client = await open(server.url);
    await client.listTools();
    await client.close();
    expect(server.requests.every((r) => r.method === "POST")).toBe(true);
    expect(server.requests.some((r) => r.headers["mcp-session-id"] !== undefined)).toBe(false);

    const legacy = await startStreamableHttpServer({ stateful: true });
    servers.push(legacy);
    const old = await open(legacy.url);
    expect(old.era).toBe("legacy");
    await old.listTools();
    await old.close();
    const methods = legacy.requests.map((r) => r.method);
    expect(methods).toContain("DELETE");
    const afterInit = legacy.requests.filter((r) => r.rpc === "tools/list");
    expect(afterInit[0].session).toBeDefined();
  });
});
