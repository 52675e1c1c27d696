/**
 * McpClient over a scripted server: every method's wire shape and capability check, the result cache as
 * a user meets it, structuredContent validation, and the typed notification events.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connect, MethodNotSupportedError, StructuredContentError, type ClientOptions, type McpClient } from "../../src/index.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { waitFor } from "../helpers/processes.js";
import { ScriptedServer } from "../helpers/scripted-server.js";

let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((client) => client.close()));
  clients = [];
  vi.restoreAllMocks();
});

async function open(server: ScriptedServer, options: ClientOptions = {}) {
  const client = await connect(server.clientSide, { protocol: "legacy", ...options });
  clients.push(client);
  return client;
}

const everything = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

/** A server that answers every client method with a recognisable result. */
function fullServer(capabilities: Record<string, unknown> = everything): ScriptedServer {
  const server = new ScriptedServer();
  server.capabilities = capabilities;
  server
    .on("resources/list", () => ({ resources: [{ uri: "x:/1", name: "one" }] }))
    .on("resources/templates/list", () => ({ resourceTemplates: [{ uriTemplate: "x:/{id}", name: "t" }] }))
    .on("resources/read", (request) => ({ contents: [{ uri: (request.params as { uri: string }).uri, text: "body" }] }))
    .on("resources/subscribe", () => ({}))
    .on("resources/unsubscribe", () => ({}))
    .on("prompts/list", () => ({ prompts: [{ name: "p" }] }))
    .on("prompts/get", () => ({ messages: [{ role: "user", content: { type: "text", text: "hi" } }] }))
    .on("completion/complete", () => ({ completion: { values: ["a", "b"] } }))
    .on("logging/setLevel", () => ({}));
  return server;
}

/** Every client method, called the way a user would. */
const calls: Array<[string, (client: McpClient) => Promise<unknown>]> = [
  ["tools/list", (c) => c.listTools()],
  ["tools/call", (c) => c.callTool("echo", { text: "x" })],
  ["resources/list", (c) => c.listResources()],
  ["resources/templates/list", (c) => c.listResourceTemplates()],
  ["resources/read", (c) => c.readResource("x:/1")],
  ["resources/subscribe", (c) => c.subscribeResource("x:/1")],
  ["resources/unsubscribe", (c) => c.unsubscribeResource("x:/1")],
  ["prompts/list", (c) => c.listPrompts()],
  ["prompts/get", (c) => c.getPrompt("p", { a: "1" })],
  ["completion/complete", (c) => c.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "x" })],
  ["logging/setLevel", (c) => c.setLoggingLevel("debug")],
];

describe("capability checks", () => {
  it.each(calls)("%s fails fast, with no round trip, when the server did not declare its capability", async (method, call) => {
    const server = fullServer({});
    const client = await open(server);
    const before = server.received.length;
    const error = await call(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MethodNotSupportedError);
    expect((error as Error).message).toContain(method);
    expect(server.received.length).toBe(before);
  });

  it("subscribe needs resources.subscribe, not just resources", async () => {
    const client = await open(fullServer({ resources: {} }));
    await expect(client.subscribeResource("x:/1")).rejects.toThrow(/resources\.subscribe/);
    await expect(client.readResource("x:/1")).resolves.toBeDefined();
  });

  it("enforceCapabilities: false sends every method anyway; ping needs no capability", async () => {
    const server = fullServer({});
    const client = await open(server, { enforceCapabilities: false });
    for (const [method, call] of calls) {
      await call(client);
      expect(server.messages(method).length).toBeGreaterThan(0);
    }
    await client.ping();
  });
});

describe("every method's request and result", () => {
  it("sends the spec's params and returns the server's result", async () => {
    const server = fullServer();
    const client = await open(server);
    expect(await client.listResources()).toEqual([{ uri: "x:/1", name: "one" }]);
    expect(await client.listResourceTemplates()).toEqual([{ uriTemplate: "x:/{id}", name: "t" }]);
    expect(await client.readResource("x:/1")).toEqual({ contents: [{ uri: "x:/1", text: "body" }] });
    await client.subscribeResource("x:/1");
    await client.unsubscribeResource("x:/1");
    expect(await client.listPrompts()).toEqual([{ name: "p" }]);
    expect((await client.getPrompt("p", { a: "1" })).messages).toHaveLength(1);
    expect((await client.complete({ type: "ref/prompt", name: "p" }, { name: "a", value: "x" }, { arguments: { b: "2" } })).completion.values).toEqual([
      "a",
      "b",
    ]);
    await client.setLoggingLevel("warning");
    const params = (method: string) => (server.messages(method)[0] as JsonRpcRequest).params;
    expect(params("resources/subscribe")).toEqual({ uri: "x:/1" });
    expect(params("prompts/get")).toEqual({ name: "p", arguments: { a: "1" } });
    expect(params("completion/complete")).toEqual({
      ref: { type: "ref/prompt", name: "p" },
      argument: { name: "a", value: "x" },
      context: { arguments: { b: "2" } },
    });
    expect(params("logging/setLevel")).toEqual({ level: "warning" });
  });
});

describe("the result cache, as a user meets it", () => {
  it("a repeated listTools() costs no round trip while the server declared listChanged; list_changed refreshes it", async () => {
    const server = fullServer();
    const client = await open(server);
    await client.listTools();
    await client.listTools();
    await client.listPrompts();
    await client.listPrompts();
    expect(server.messages("tools/list")).toHaveLength(1);
    expect(server.messages("prompts/list")).toHaveLength(1);
    server.notify("notifications/tools/list_changed");
    await waitFor(() => client.cache.size === 1); // only the prompts page is left
    await client.listTools();
    expect(server.messages("tools/list")).toHaveLength(2);
    await client.listTools({ cache: false });
    expect(server.messages("tools/list")).toHaveLength(3);
  });

  it("asks every time when the server did not declare listChanged, or when the client said cache: false", async () => {
    const plain = fullServer({ tools: {} });
    const client = await open(plain);
    await client.listTools();
    await client.listTools();
    expect(plain.messages("tools/list")).toHaveLength(2);
    const declared = fullServer();
    const uncached = await open(declared, { cache: false });
    await uncached.listTools();
    await uncached.listTools();
    expect(declared.messages("tools/list")).toHaveLength(2);
  });

  it("concurrent identical list calls share one request", async () => {
    const server = fullServer({ tools: {} });
    const client = await open(server);
    const lists = await Promise.all([client.listTools(), client.listTools(), client.listTools()]);
    expect(server.messages("tools/list")).toHaveLength(1);
    expect(lists[1]).toEqual(lists[0]);
  });

  it("follows and caches every page", async () => {
    const server = fullServer();
    server.on("tools/list", (request) => {
      const cursor = (request.params as { cursor?: string } | undefined)?.cursor;
      return cursor === undefined ? { tools: [{ name: "a", inputSchema: {} }], nextCursor: "2" } : { tools: [{ name: "b", inputSchema: {} }] };
    });
    const client = await open(server);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["a", "b"]);
    expect((await client.listTools()).map((t) => t.name)).toEqual(["a", "b"]);
    expect(server.messages("tools/list")).toHaveLength(2);
  });

  it("keeps a read with a TTL until resources/updated names its uri", async () => {
    const server = fullServer();
    server.on("resources/read", (request) => ({ contents: [{ uri: (request.params as { uri: string }).uri, text: "v" }], ttlMs: 60_000 }));
    const client = await open(server);
    await client.readResource("x:/1");
    await client.readResource("x:/1");
    expect(server.messages("resources/read")).toHaveLength(1);
    server.notify("notifications/resources/updated", { uri: "x:/1" });
    await waitFor(() => client.cache.size === 0);
    await client.readResource("x:/1");
    expect(server.messages("resources/read")).toHaveLength(2);
  });

  it("drops everything when the connection closes", async () => {
    const client = await open(fullServer());
    await client.listTools();
    expect(client.cache.size).toBe(1);
    await client.close();
    expect(client.cache.size).toBe(0);
  });

  it("off(event) without a listener removes the user's listeners but keeps the cache's invalidation", async () => {
    const server = fullServer();
    const client = await open(server);
    let heard = 0;
    client.on("toolsChanged", () => heard++);
    client.off("toolsChanged");
    await client.listTools();
    server.notify("notifications/tools/list_changed");
    await waitFor(() => client.cache.size === 0);
    expect(heard).toBe(0);
  });
});

describe("structuredContent validation", () => {
  const outputSchema = { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] };
  function toolServer(structured: unknown) {
    const server = fullServer();
    server.on("tools/list", () => ({
      tools: [
        { name: "add", inputSchema: { type: "object" }, outputSchema },
        { name: "free", inputSchema: { type: "object" } },
      ],
    }));
    server.on("tools/call", (request) => {
      const name = (request.params as { name: string }).name;
      return { content: [{ type: "text", text: "r" }], ...(name === "add" ? { structuredContent: structured } : {}) };
    });
    return server;
  }

  it("is off by default: a mismatch is returned as it is, with no tools/list behind the caller's back", async () => {
    const server = toolServer({ sum: "three" });
    const client = await open(server);
    expect((await client.callTool("add", {})).structuredContent).toEqual({ sum: "three" });
    expect(server.messages("tools/list")).toHaveLength(0);
  });

  it("per call: rejects a mismatch with an error naming the tool and the path", async () => {
    const client = await open(toolServer({ sum: "three" }));
    const error = await client.callTool("add", {}, { validateStructuredContent: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StructuredContentError);
    expect((error as StructuredContentError).tool).toBe("add");
    expect((error as Error).message).toMatch(/Tool add .*at \/sum: must be number/);
  });

  it("on connect: passes conforming results and tools without an outputSchema; compiles each schema once", async () => {
    const compile = vi.spyOn(Ajv2020.prototype, "compile");
    const server = toolServer({ sum: 3 });
    const client = await open(server, { validateStructuredContent: true });
    for (let i = 0; i < 3; i++) expect((await client.callTool("add", {})).structuredContent).toEqual({ sum: 3 });
    await client.callTool("free", {});
    expect(compile).toHaveBeenCalledTimes(1);
    expect(server.messages("tools/list")).toHaveLength(1);
  });

  it("recompiles after the tool list changes, also for a schema with an $id", async () => {
    const server = fullServer();
    const withId = { ...outputSchema, $id: "https://example.com/sum.json" };
    server.on("tools/list", () => ({ tools: [{ name: "add", inputSchema: { type: "object" }, outputSchema: structuredClone(withId) }] }));
    server.on("tools/call", () => ({ content: [], structuredContent: { sum: "x" } }));
    const client = await open(server, { validateStructuredContent: true });
    await expect(client.callTool("add", {})).rejects.toThrow(/at \/sum: must be number/);
    server.notify("notifications/tools/list_changed");
    await waitFor(() => client.cache.size === 0);
    await expect(client.callTool("add", {})).rejects.toThrow(/at \/sum: must be number/);
    expect(server.messages("tools/list")).toHaveLength(2);
  });

  it("rejects a result that omits structuredContent though the tool declares an outputSchema", async () => {
    const client = await open(toolServer(undefined), { validateStructuredContent: true });
    await expect(client.callTool("add", {})).rejects.toThrow("Tool add declares an outputSchema but returned no structuredContent");
  });
});

describe("notification events", () => {
  it("emits log, progress, list changes, resource updates and cancellations as typed events, and every one as notification", async () => {
    const server = fullServer();
    const client = await open(server);
    const seen: unknown[] = [];
    client.on("log", (p) => seen.push(["log", p.level, p.data]));
    client.on("progress", (p) => seen.push(["progress", p.progress, p.total]));
    client.on("toolsChanged", () => seen.push(["toolsChanged"]));
    client.on("resourcesChanged", () => seen.push(["resourcesChanged"]));
    client.on("promptsChanged", () => seen.push(["promptsChanged"]));
    client.on("resourceUpdated", (p) => seen.push(["resourceUpdated", p.uri]));
    client.on("cancelled", (p) => seen.push(["cancelled", p.requestId, p.reason]));
    const methods: string[] = [];
    client.on("notification", (n) => methods.push(n.method));
    server.notify("notifications/message", { level: "info", data: "hello" });
    server.notify("notifications/progress", { progressToken: "t", progress: 1, total: 2 });
    server.notify("notifications/tools/list_changed");
    server.notify("notifications/resources/list_changed");
    server.notify("notifications/prompts/list_changed");
    server.notify("notifications/resources/updated", { uri: "x:/1" });
    server.notify("notifications/cancelled", { requestId: 77, reason: "changed my mind" });
    server.notify("notifications/custom/thing", { a: 1 });
    await waitFor(() => methods.length === 8);
    expect(seen).toEqual([
      ["log", "info", "hello"],
      ["progress", 1, 2],
      ["toolsChanged"],
      ["resourcesChanged"],
      ["promptsChanged"],
      ["resourceUpdated", "x:/1"],
      ["cancelled", 77, "changed my mind"],
    ]);
    expect(methods.at(-1)).toBe("notifications/custom/thing");
  });
});
