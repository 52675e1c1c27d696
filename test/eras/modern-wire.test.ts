/**
 * What goes on the wire in each era, over a memory pair: the 2026 envelope on every request, the 2025
 * era byte-for-byte unchanged, resultType handling, methods the era lacks, log level per request,
 * progress and timeouts, resource-not-found in both eras, header value encoding.
 */
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { connect, McpClient, MethodNotSupportedError, ProtocolError, RequestTimeoutError, ResourceNotFoundError, type Transport } from "../../src/index.js";
import { encodeHeaderValue } from "../../src/connection/eras/modern-wire.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { ENVELOPE_CAPABILITIES, ENVELOPE_INFO, ENVELOPE_VERSION, metaOf, modernServer, replyError, requestsOf } from "../helpers/modern-server.js";

const track = closeAfterEach();

async function open(transport: Transport, options: Parameters<typeof connect>[1] = {}): Promise<McpClient> {
  const client = await connect(transport, options);
  track(client);
  return client;
}

describe("the 2026 request envelope", () => {
  it("checklist 2: every request carries protocolVersion, clientCapabilities and clientInfo in params._meta, even tools/list", async () => {
    const server = modernServer();
    server.capabilities = {};
    const client = await open(server.clientSide, {
      clientInfo: { name: "tester", version: "9" },
      onSampling: () => ({ role: "assistant", content: { type: "text", text: "" }, model: "m" }),
    });
    await client.listTools();
    await client.callTool("echo", { text: "hi" }, { onProgress: () => {} });
    server.on("custom/thing", () => ({ resultType: "complete" }));
    await client.request("custom/thing", { _meta: { [ENVELOPE_VERSION]: "caller-wins", mine: 1 } });
    for (const request of requestsOf(server)) {
      const meta = metaOf(request);
      expect(meta[ENVELOPE_CAPABILITIES]).toEqual({ sampling: {} });
      expect(meta[ENVELOPE_INFO]).toEqual({ name: "tester", version: "9" });
      expect(typeof meta[ENVELOPE_VERSION]).toBe("string");
    }
    const list = server.messages("tools/list")[0] as { params: Record<string, unknown> };
    expect(Object.keys(list.params)).toEqual(["_meta"]);
    const custom = server.messages("custom/thing")[0];
    expect(metaOf(custom)[ENVELOPE_VERSION]).toBe("caller-wins"); // the caller's keys win
    expect(metaOf(custom).mine).toBe(1);
    expect(metaOf(server.messages("tools/call")[0]).progressToken).toBeDefined();
  });

  it("checklist 3: the 2025 era sends no envelope keys, and its requests are the 2025 bytes", async () => {
    const server = new ScriptedServer();
    const client = await open(server.clientSide, { protocol: "legacy" });
    await client.listTools();
    await client.callTool("echo", { text: "x" });
    const wire = server.received.map((m) => JSON.stringify(m));
    expect(wire.some((line) => line.includes("io.modelcontextprotocol/"))).toBe(false);
    const list = server.messages("tools/list")[0] as { id: number };
    const call = server.messages("tools/call")[0] as { id: number };
    expect(wire).toContain(JSON.stringify({ jsonrpc: "2.0", id: list.id, method: "tools/list" }));
    expect(wire).toContain(JSON.stringify({ jsonrpc: "2.0", id: call.id, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }));
    // And auto mode against a 2025 server: after the probe, the same bytes.
    const auto = new ScriptedServer();
    const legacy = await open(auto.clientSide);
    await legacy.callTool("echo", { text: "x" });
    const autoCall = auto.messages("tools/call")[0];
    expect(JSON.stringify(autoCall)).toBe(
      JSON.stringify({ jsonrpc: "2.0", id: (autoCall as { id: number }).id, method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }),
    );
    expect(JSON.stringify(auto.messages("initialize")[0])).not.toContain("io.modelcontextprotocol/");
  });

  it("checklist 5: header values that are not plain visible ASCII are sent as =?base64?...?=", () => {
    expect(encodeHeaderValue("get_weather")).toBe("get_weather");
    expect(encodeHeaderValue("a b\tc")).toBe("a b\tc");
    expect(encodeHeaderValue("café")).toBe(`=?base64?${Buffer.from("café").toString("base64")}?=`);
    expect(encodeHeaderValue("line\nbreak")).toBe(`=?base64?${Buffer.from("line\nbreak").toString("base64")}?=`);
    expect(encodeHeaderValue(" edge")).toBe(`=?base64?${Buffer.from(" edge").toString("base64")}?=`);
    expect(encodeHeaderValue("edge\t")).toBe(`=?base64?${Buffer.from("edge\t").toString("base64")}?=`);
    expect(encodeHeaderValue("=?base64?abc?=")).toBe(`=?base64?${Buffer.from("=?base64?abc?=").toString("base64")}?=`);
    expect(encodeHeaderValue("")).toBe("=?base64??=");
  });
});

describe("results and methods per era", () => {
  it("checklist 14: a result without resultType is complete in both eras; on 2026 an unknown resultType is rejected", async () => {
    const legacy = await open(new ScriptedServer().clientSide, { protocol: "legacy" });
    expect((await legacy.callTool("echo", { text: "x" })).content).toEqual([{ type: "text", text: "x" }]);

    const server = modernServer();
    server.on("tools/call", (request) => ((request.params as { name: string }).name === "bare" ? { content: [] } : { resultType: "surprise", content: [] }));
    const client = await open(server.clientSide);
    // "Clients MUST treat an absent resultType as complete" (conformance: sep-2322-default-result-type-complete).
    expect(await client.callTool("bare")).toEqual({ content: [] });
    expect(requestsOf(server).filter((r) => r.method === "tools/call")).toHaveLength(1);
    const unknown = await client.callTool("odd").catch((e) => e);
    expect(unknown).toBeInstanceOf(ProtocolError);
    expect(unknown.message).toMatch(/unknown resultType "surprise"/);
  });

  it("checklist 14: results keep ttlMs, cacheScope and resultType on their way to the client", async () => {
    const client = await open(modernServer().clientSide);
    const page = await client.request("tools/list");
    expect(page).toMatchObject({ resultType: "complete", ttlMs: 5000, cacheScope: "private" });
  });

  it("checklist 24: ping, logging/setLevel and resources/subscribe are never sent; ping() is a server/discover; the log level rides in each request's _meta", async () => {
    const server = modernServer();
    const client = await open(server.clientSide);
    const discovers = server.messages("server/discover").length;
    await expect(client.ping()).resolves.toBeUndefined();
    expect(server.messages("server/discover")).toHaveLength(discovers + 1);
    await expect(client.request("resources/subscribe", { uri: "a://b" })).rejects.toBeInstanceOf(MethodNotSupportedError);
    await client.callTool("echo", { text: "before" });
    await client.setLoggingLevel("warning");
    await client.callTool("echo", { text: "after" });
    const methods = server.received.map((m) => ("method" in m ? m.method : ""));
    expect(methods).not.toContain("ping");
    expect(methods).not.toContain("logging/setLevel");
    expect(methods).not.toContain("resources/subscribe");
    const [before, after] = server.messages("tools/call");
    expect(metaOf(before)["io.modelcontextprotocol/logLevel"]).toBeUndefined();
    expect(metaOf(after)["io.modelcontextprotocol/logLevel"]).toBe("warning");
  });

  it("checklist 25: requests without a log level do not ask for log messages; progress is routed by the request's progressToken", async () => {
    const server = modernServer();
    server.on("tools/call", (request, s) => {
      const token = metaOf(request).progressToken;
      s.notify("notifications/progress", { progressToken: "someone-else", progress: 99 });
      s.notify("notifications/progress", { progressToken: token, progress: 1, total: 2 });
      s.notify("notifications/progress", { progressToken: token, progress: 2, total: 2 });
      return { resultType: "complete", content: [] };
    });
    const client = await open(server.clientSide);
    const seen: number[] = [];
    await client.callTool("work", {}, { onProgress: (p) => seen.push(p.progress) });
    expect(seen).toEqual([1, 2]);
    expect(metaOf(server.messages("tools/call")[0])).not.toHaveProperty(["io.modelcontextprotocol/logLevel"]);
  });

  it("checklist 18: the 2025 era answers server requests (ping, roots/list); the 2026 era drops them and says so", async () => {
    const old = new ScriptedServer();
    await open(old.clientSide, { protocol: "legacy", roots: [{ uri: "file:///r", name: "r" }] });
    old.send({ jsonrpc: "2.0", id: "s1", method: "ping" });
    old.send({ jsonrpc: "2.0", id: "s2", method: "roots/list" });
    old.send({ jsonrpc: "2.0", id: "s3", method: "elicitation/create", params: { message: "?", requestedSchema: { type: "object", properties: {} } } });
    await new Promise((r) => setTimeout(r, 20));
    const answers = old.received.filter((m) => "id" in m && !("method" in m)) as { id: string; result?: unknown; error?: { code: number } }[];
    expect(answers.find((a) => a.id === "s1")?.result).toEqual({});
    expect(answers.find((a) => a.id === "s2")?.result).toEqual({ roots: [{ uri: "file:///r", name: "r" }] });
    expect(answers.find((a) => a.id === "s3")?.error?.code).toBe(-32601); // no handler: a JSON-RPC error, still an answer

    const server = modernServer();
    const client = await open(server.clientSide, { roots: [{ uri: "file:///r" }] });
    const errors: Error[] = [];
    client.on("error", (e) => errors.push(e));
    server.send({ jsonrpc: "2.0", id: "s1", method: "roots/list" });
    server.send({ jsonrpc: "2.0", id: "s2", method: "ping" });
    await new Promise((r) => setTimeout(r, 20));
    expect(server.received.filter((m) => "id" in m && !("method" in m))).toHaveLength(0);
    expect(errors.map((e) => e.message).join("\n")).toMatch(/Dropped a roots\/list request.*2026-07-28 has no server-to-client requests/);
  });

  it("checklist 32: resource not found is one error in both eras, whether the server says -32602 or -32002", async () => {
    const modern = modernServer();
    modern.on("resources/read", (request, s) => replyError(s, request.id, -32602, "Resource not found: a://gone", { uri: "a://gone" }));
    const a = await open(modern.clientSide, { enforceCapabilities: false });
    const fromModern = await a.readResource("a://gone").catch((e) => e);
    expect(fromModern).toBeInstanceOf(ResourceNotFoundError);
    expect(fromModern).toMatchObject({ code: -32602, uri: "a://gone" });

    const legacy = new ScriptedServer();
    legacy.on("resources/read", (request, s) => replyError(s, request.id, -32002, "Resource not found"));
    const b = await open(legacy.clientSide, { protocol: "legacy", enforceCapabilities: false });
    const fromLegacy = await b.readResource("a://gone").catch((e) => e);
    expect(fromLegacy).toBeInstanceOf(ResourceNotFoundError);
    expect(fromLegacy).toMatchObject({ code: -32002, uri: "a://gone" });
    // Other invalid-params errors stay what they are.
    modern.on("resources/read", (request, s) => replyError(s, request.id, -32602, "bad cursor"));
    const other = await a.readResource("a://x").catch((e) => e);
    expect(other).not.toBeInstanceOf(ResourceNotFoundError);
  });

  it("checklist 35: every request has a timeout (per request, reset on progress, hard maximum); on a non-HTTP wire it cancels with notifications/cancelled", async () => {
    const server = modernServer();
    server.on("tools/call", (request, s) => {
      const name = (request.params as { name: string }).name;
      if (name === "ticking") {
        const token = metaOf(request).progressToken;
        const timer = setInterval(() => s.notify("notifications/progress", { progressToken: token, progress: 1 }), 100);
        setTimeout(() => clearInterval(timer), 2000);
      }
      return "silent";
    });
    const client = await open(server.clientSide, { requestTimeoutMs: 5000, autoListen: false }); // pending counts only the calls
    const timedOut = await client.callTool("slow", {}, { timeoutMs: 50 }).catch((e) => e);
    expect(timedOut).toBeInstanceOf(RequestTimeoutError);
    // Progress every 100 ms keeps a 400 ms timeout from firing (wide margins: a loaded machine delays
    // timers by tens of ms) until the 700 ms cap ends the call.
    const ticking = await client.callTool("ticking", {}, { timeoutMs: 400, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 700 }).catch((e) => e);
    expect(ticking).toBeInstanceOf(RequestTimeoutError);
    expect(ticking.message).toMatch(/maxTotalTimeoutMs/);
    await new Promise((r) => setTimeout(r, 10));
    const cancels = server.messages("notifications/cancelled") as unknown as { params: { requestId: unknown } }[];
    const ids = server.messages("tools/call").map((m) => (m as { id: unknown }).id);
    expect(cancels.map((c) => c.params.requestId)).toEqual(ids);
    expect(client.connection.stats().pending).toBe(0);
  });
});
