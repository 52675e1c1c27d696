/**
 * Checklist 29-31 end to end: a real 2026 connection (scripted servers: the SDK v2 server always
 * answers ttlMs 0) and the client's result cache. TTLs, cacheScope, invalidation by the listen stream,
 * and what is never kept.
 */
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { connect, McpClient } from "../../src/index.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { modernServer } from "../helpers/modern-server.js";
import type { ScriptedServer } from "../helpers/scripted-server.js";
import { MODERN_DISCOVER, result, startScriptedHttp, type ScriptedHttp } from "../fixtures/scripted-http.js";

const track = closeAfterEach();

const SID = "io.modelcontextprotocol/subscriptionId";
const tick = (ms = 10) => new Promise((r) => setTimeout(r, ms));

async function open(server: ScriptedServer, options: Parameters<typeof connect>[1] = {}): Promise<McpClient> {
  const client = await connect(server.clientSide, { enforceCapabilities: false, ...options });
  track(client);
  return client;
}

const reads = (server: ScriptedServer, uri: string) => server.messages("resources/read").filter((m) => (m as JsonRpcRequest).params?.uri === uri).length;

/** ttlMs per uri: `a://ttl/<n>` answers ttlMs n, `a://ttl/absent` none. */
function ttlServer(): ScriptedServer {
  const server = modernServer();
  server.on("resources/read", (request) => {
    const uri = (request.params as { uri: string }).uri;
    const ttl = uri.slice("a://ttl/".length);
    const base = { resultType: "complete", cacheScope: "public", contents: [{ uri, text: "v" }] };
    return ttl === "absent" ? base : { ...base, ttlMs: Number(ttl) };
  });
  return server;
}

describe("the result cache over a 2026 connection", () => {
  it("checklist 29: ttlMs 0, absent or negative: asked again; positive: served from the cache until it expires", async () => {
    const server = ttlServer();
    const client = await open(server);
    for (const ttl of ["0", "absent", "-5"]) {
      await client.readResource(`a://ttl/${ttl}`);
      await client.readResource(`a://ttl/${ttl}`);
      expect(reads(server, `a://ttl/${ttl}`), `ttlMs ${ttl}`).toBe(2);
    }
    await client.readResource("a://ttl/400");
    await client.readResource("a://ttl/400");
    expect(reads(server, "a://ttl/400")).toBe(1);
    await tick(450); // past the TTL
    await client.readResource("a://ttl/400");
    expect(reads(server, "a://ttl/400")).toBe(2);

    // A list page with ttlMs 0 is asked again even though the server advertises tools.listChanged
    // (the 2025 rule "keep while listChanged" does not apply in this era).
    server.on("tools/list", () => ({ resultType: "complete", ttlMs: 0, cacheScope: "public", tools: [] }));
    await client.listTools();
    await client.listTools();
    expect(server.messages("tools/list")).toHaveLength(2);
  });

  it('checklist 29: cacheScope "private" entries are not shared across clients (each client, each auth context, has its own cache)', async () => {
    const http: ScriptedHttp = await startScriptedHttp((request) => {
      const method = request.body?.method;
      if (method === "server/discover") return result(request, MODERN_DISCOVER);
      if (method === "tools/list") {
        const who = String(request.headers.authorization).replace("Bearer ", "");
        return result(request, {
          resultType: "complete",
          ttlMs: 60_000,
          cacheScope: "private",
          tools: [{ name: `tool_of_${who}`, inputSchema: { type: "object" } }],
        });
      }
      return { status: 202 };
    });
    track(http);
    const alice = await connect({ url: http.url, auth: { token: "alice" } }, { autoListen: false });
    const bob = await connect({ url: http.url, auth: { token: "bob" } }, { autoListen: false });
    track(alice);
    track(bob);
    expect((await alice.listTools()).map((t) => t.name)).toEqual(["tool_of_alice"]);
    expect((await bob.listTools()).map((t) => t.name)).toEqual(["tool_of_bob"]); // not alice's cached page
    expect((await alice.listTools()).map((t) => t.name)).toEqual(["tool_of_alice"]); // alice's own, from her cache
    expect((await bob.listTools()).map((t) => t.name)).toEqual(["tool_of_bob"]);
    expect(http.posts("tools/list").map((r) => r.headers.authorization)).toEqual(["Bearer alice", "Bearer bob"]);
  });

  it("checklist 30: list_changed on the listen stream drops the cached list; resources/updated drops the cached read of that uri only", async () => {
    const server = ttlServer();
    server.on("subscriptions/listen", (request, s) => {
      s.notify("notifications/subscriptions/acknowledged", {
        notifications: (request.params as { notifications: unknown }).notifications,
        _meta: { [SID]: request.id },
      });
      return "silent";
    });
    const client = await open(server);
    await client.listTools();
    await client.listTools();
    expect(server.messages("tools/list")).toHaveLength(1);
    const auto = server.messages("subscriptions/listen")[0] as JsonRpcRequest; // the automatic listen
    server.notify("notifications/tools/list_changed", { _meta: { [SID]: auto.id } });
    await tick();
    await client.listTools();
    expect(server.messages("tools/list")).toHaveLength(2);

    await client.readResource("a://ttl/60000");
    await client.readResource("a://ttl/30000");
    await client.subscribeResource("a://ttl/60000");
    const watch = server.messages("subscriptions/listen").at(-1) as JsonRpcRequest;
    expect(watch.params).toMatchObject({ notifications: { resourceSubscriptions: ["a://ttl/60000"] } });
    server.notify("notifications/resources/updated", { uri: "a://ttl/60000", _meta: { [SID]: watch.id } });
    await tick();
    await client.readResource("a://ttl/60000");
    await client.readResource("a://ttl/30000");
    expect(reads(server, "a://ttl/60000")).toBe(2); // dropped, asked again
    expect(reads(server, "a://ttl/30000")).toBe(1); // untouched
    await client.listTools();
    expect(server.messages("tools/list")).toHaveLength(2); // a read's update leaves the lists alone
  });

  it("checklist 31: neither an input_required result nor the result of its MRTR retry is cached, whatever their ttlMs", async () => {
    const server = modernServer();
    server.on("resources/read", (request) => {
      const params = request.params as { uri: string; inputResponses?: unknown };
      if (params.uri === "a://plain") return { resultType: "complete", ttlMs: 60_000, cacheScope: "public", contents: [{ uri: params.uri, text: "plain" }] };
      return params.inputResponses === undefined
        ? { resultType: "input_required", inputRequests: { r: { method: "roots/list" } }, ttlMs: 99_999, cacheScope: "public" }
        : { resultType: "complete", ttlMs: 60_000, cacheScope: "public", contents: [{ uri: params.uri, text: "made from the answers" }] };
    });
    const client = await open(server, { roots: [{ uri: "file:///work", name: "work" }] });
    const first = await client.readResource("a://asks");
    expect(first.contents).toEqual([{ uri: "a://asks", text: "made from the answers" }]);
    expect(JSON.stringify(first)).not.toMatch(/uncacheable/); // the mark is invisible on the wire shape
    await client.readResource("a://asks");
    expect(reads(server, "a://asks")).toBe(4); // two full exchanges: input_required, then the retry, each time
    const retries = server.messages("resources/read").filter((m) => (m as JsonRpcRequest).params?.inputResponses !== undefined);
    expect(retries).toHaveLength(2);
    // The control: a plain result with the same ttlMs is kept.
    await client.readResource("a://plain");
    await client.readResource("a://plain");
    expect(reads(server, "a://plain")).toBe(1);
    expect(client.cache.size).toBe(1); // only a://plain
  });
});
