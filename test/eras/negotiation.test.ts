/**
 * Era negotiation over a memory pair (which negotiates as stdio does: silence means a 2025 server):
 * the first wire message per mode, the probe's classification, the verdict cache, -32022 recovery and
 * the DiscoverResult facts.
 */
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { ConfigError, connect, McpClient, McpError, UnsupportedProtocolVersionError, type Transport } from "../../src/index.js";
import { MODERN_PROTOCOL_VERSIONS, isModern as isModernVersion } from "../../src/connection/eras/versions.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { DISCOVER_RESULT, ENVELOPE_VERSION, metaOf, modernServer, replyError, requestsOf } from "../helpers/modern-server.js";

const track = closeAfterEach();

async function open(transport: Transport, options: Parameters<typeof connect>[1] = {}): Promise<McpClient> {
  const client = await connect(transport, options);
  track(client);
  return client;
}

/** The same server identity for several transports (as a stdio command line or an HTTP origin is). */
function sameServer(transport: Transport, identity: string): Transport {
  return new Proxy(transport, {
    get(target, property) {
      if (property === "identity") return identity;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The next connection to `identity` probes again (its cached verdict was dropped) and lands in the 2025 era. */
async function expectProbedAgainAsLegacy(identity: string): Promise<void> {
  const again = new ScriptedServer();
  const reprobed = await open(sameServer(again.clientSide, identity));
  expect(requestsOf(again).map((r) => r.method)).toEqual(["server/discover", "initialize"]);
  expect(reprobed.era).toBe("legacy");
}

describe("era negotiation", () => {
  it.each([
    ["legacy", "initialize"],
    ["auto", "server/discover"],
    ["2026-07-28", "server/discover"],
  ])("checklist 1: protocol %s sends %s first", async (mode, first) => {
    const server = mode === "legacy" ? new ScriptedServer() : modernServer();
    await open(server.clientSide, { protocol: mode });
    expect((requestsOf(server)[0] as { method: string }).method).toBe(first);
  });

  it("checklist 8: a DiscoverResult makes the connection modern, and initialize is never sent", async () => {
    const server = modernServer();
    const client = await open(server.clientSide);
    expect(client.era).toBe("modern");
    expect(client.protocolVersion).toBe("2026-07-28");
    expect(server.messages("initialize")).toHaveLength(0);
  });

  it("checklist 8: -32022 naming a mutual version gives exactly one corrective probe at that version, never initialize", async () => {
    const server = modernServer();
    server.on("server/discover", (request, s) => {
      if (metaOf(request)[ENVELOPE_VERSION] !== "2026-07-28")
        return replyError(s, request.id, -32022, "Unsupported protocol version", { supported: ["2026-07-28"], requested: "2027-01-01" });
      return DISCOVER_RESULT;
    });
    const client = await withModernVersion("2027-01-01", () => open(server.clientSide, { protocol: "2027-01-01" }).catch((e) => e));
    // Pinned 2027-01-01 is not offered by the server: a pin never falls back, and never to initialize.
    expect(client).toBeInstanceOf(UnsupportedProtocolVersionError);
    expect(server.messages("initialize")).toHaveLength(0);

    const auto = modernServer();
    let probes = 0;
    auto.on("server/discover", (request, s) => {
      probes++;
      if (probes === 1) return replyError(s, request.id, -32022, "Unsupported protocol version", { supported: ["2026-07-28"], requested: "2026-07-28" });
      return DISCOVER_RESULT;
    });
    const modern = await open(auto.clientSide);
    expect(modern.era).toBe("modern");
    expect(auto.messages("server/discover")).toHaveLength(2);
    expect(metaOf(auto.messages("server/discover")[1])[ENVELOPE_VERSION]).toBe("2026-07-28");
    expect(auto.messages("initialize")).toHaveLength(0);
  });

  it.each([
    ["-32601", -32601],
    ["-32602", -32602],
    ["another error (-32000)", -32000],
    ["-32020 (not era evidence)", -32020],
  ])("checklist 9: a probe answered with %s falls back to initialize", async (_name, code) => {
    const server = new ScriptedServer();
    server.on("server/discover", (request, s) => replyError(s, request.id, code, "nope"));
    const client = await open(server.clientSide);
    expect(client.era).toBe("legacy");
    expect(requestsOf(server).map((r) => r.method)).toEqual(["server/discover", "initialize"]);
  });

  it("checklist 9: no reply before the probe timeout falls back to initialize", async () => {
    const server = new ScriptedServer();
    server.on("server/discover", () => "silent");
    const started = Date.now();
    const client = await open(server.clientSide, { probeTimeoutMs: 150 });
    expect(client.era).toBe("legacy");
    expect(Date.now() - started).toBeLessThan(2000);
    expect(requestsOf(server).map((r) => r.method)).toEqual(["server/discover", "initialize"]);
  });

  it("checklist 12: the verdict is cached per server identity; a later connection skips the probe", async () => {
    const identity = `test:${Math.random()}`;
    const first = modernServer();
    const a = await open(sameServer(first.clientSide, identity));
    expect(a.era).toBe("modern");
    const second = modernServer();
    const b = await open(sameServer(second.clientSide, identity), { autoListen: false }); // only negotiation's round trips counted
    expect(b.era).toBe("modern");
    expect(b.serverInfo?.name).toBe("modern-scripted");
    expect(second.received).toHaveLength(0); // zero round trips
    expect((await b.callTool("echo", { text: "x" })).content).toEqual([{ type: "text", text: "x" }]);

    const legacyId = `test:${Math.random()}`;
    const old = new ScriptedServer();
    await open(sameServer(old.clientSide, legacyId));
    const oldAgain = new ScriptedServer();
    await open(sameServer(oldAgain.clientSide, legacyId));
    expect(requestsOf(oldAgain).map((r) => r.method)).toEqual(["initialize"]);
  });

  it("checklist 12: a cached modern verdict that stops working (a 2025-style answer) is dropped and the next connection probes", async () => {
    const identity = `test:${Math.random()}`;
    await open(sameServer(modernServer().clientSide, identity));
    const downgraded = new ScriptedServer();
    downgraded.on("tools/call", (request, s) => replyError(s, request.id, -32000, "Bad Request: Server not initialized"));
    const client = await open(sameServer(downgraded.clientSide, identity), { autoListen: false }); // its -32601 to the listen would be the sign
    const warnings: Error[] = [];
    client.on("error", (e) => warnings.push(e));
    await expect(client.callTool("echo", { text: "x" })).rejects.toThrow(/not initialized/);
    expect(warnings.some((w) => /probes the protocol era again/.test(w.message))).toBe(true);
    await expectProbedAgainAsLegacy(identity);
  });

  it("checklist 12: ordinary -32000/-32600 errors from a 2026 server's tools are not a 2025 sign: the cached verdict stays", async () => {
    const identity = `test:${Math.random()}`;
    await open(sameServer(modernServer().clientSide, identity));
    const failing = modernServer();
    failing.on("tools/call", (request, s) =>
      (request.params as { name: string }).name === "crash"
        ? replyError(s, request.id, -32000, "Tool crashed: disk full")
        : replyError(s, request.id, -32600, "Invalid arguments for tool"),
    );
    const client = await open(sameServer(failing.clientSide, identity), { autoListen: false });
    const warnings: Error[] = [];
    client.on("error", (e) => warnings.push(e));
    await expect(client.callTool("crash")).rejects.toThrow(/disk full/);
    await expect(client.callTool("bad")).rejects.toThrow(/Invalid arguments/);
    expect(warnings.filter((w) => /2025-era/.test(w.message))).toEqual([]);
    const again = modernServer();
    await open(sameServer(again.clientSide, identity), { autoListen: false });
    expect(again.received).toHaveLength(0); // the verdict was kept: no probe
  });

  it("checklist 12: -32601 to subscriptions/listen (the automatic listen) is a 2025 server speaking: the cached modern verdict is dropped", async () => {
    const identity = `test:${Math.random()}`;
    await open(sameServer(modernServer().clientSide, identity), { autoListen: false });
    const downgraded = new ScriptedServer(); // answers -32601 to methods it does not know
    downgraded.capabilities = { tools: { listChanged: true } };
    const client = await open(sameServer(downgraded.clientSide, identity));
    const warnings: Error[] = [];
    client.on("error", (e) => warnings.push(e));
    expect(client.era).toBe("modern"); // from the cached verdict, whose discover advertises listChanged
    for (let i = 0; i < 100 && !warnings.some((w) => /probes the protocol era again/.test(w.message)); i++) await new Promise((r) => setTimeout(r, 5));
    expect(warnings.some((w) => /probes the protocol era again/.test(w.message))).toBe(true);
    await expectProbedAgainAsLegacy(identity);
  });

  it("checklist 12: a cached 2025 verdict for a server that moved to 2026 only falls forward (initialize refused with -32022 naming 2026)", async () => {
    const identity = `test:${Math.random()}`;
    await open(sameServer(new ScriptedServer().clientSide, identity));
    const upgraded = modernServer(); // answers initialize with -32022 { supported: ["2026-07-28"] }
    const client = await open(sameServer(upgraded.clientSide, identity), { autoListen: false });
    expect(client.era).toBe("modern");
    expect(requestsOf(upgraded).map((r) => r.method)).toEqual(["initialize", "server/discover"]);
  });

  it("checklist 12: a cached 2025 verdict for a server that moved to 2026 only falls forward (initialize refused with -32601, unknown)", async () => {
    const identity = `test:${Math.random()}`;
    await open(sameServer(new ScriptedServer().clientSide, identity));
    const upgraded = modernServer();
    upgraded.on("initialize", (request, s) => replyError(s, request.id, -32601, "Method not found"));
    const client = await open(sameServer(upgraded.clientSide, identity), { autoListen: false });
    expect(client.era).toBe("modern");
    expect(requestsOf(upgraded).map((r) => r.method)).toEqual(["initialize", "server/discover"]);
  });

  it("a prior verdict skips the probe: modern with zero round trips, legacy straight to initialize", async () => {
    const server = modernServer();
    const client = await open(server.clientSide, { prior: { kind: "modern", discover: DISCOVER_RESULT }, autoListen: false });
    expect(client.era).toBe("modern");
    expect(server.received).toHaveLength(0);
    const old = new ScriptedServer();
    const legacy = await open(old.clientSide, { prior: { kind: "legacy" } });
    expect(legacy.era).toBe("legacy");
    expect(requestsOf(old)[0].method).toBe("initialize");
    expect(client.verdict).toEqual({ kind: "modern", discover: DISCOVER_RESULT });
    expect(legacy.verdict).toEqual({ kind: "legacy" });
  });

  it("a prior 2025 verdict does not override a pinned 2026 version: the pin probes", async () => {
    const server = modernServer();
    const client = await open(server.clientSide, { prior: { kind: "legacy" }, protocol: "2026-07-28", autoListen: false });
    expect(client.era).toBe("modern");
    expect(requestsOf(server)[0].method).toBe("server/discover");
  });

  it("checklist 13: -32022 mid-session moves to a mutual version and retries; with no overlap the error says what to do", async () => {
    const server = modernServer();
    server.on("server/discover", () => ({ ...DISCOVER_RESULT, supportedVersions: ["2026-07-28", "2027-01-01"] }));
    server.on("tools/call", (request, s) => {
      if (metaOf(request)[ENVELOPE_VERSION] === "2027-01-01")
        return replyError(s, request.id, -32022, "Unsupported protocol version", { supported: ["2026-07-28"], requested: "2027-01-01" });
      return { resultType: "complete", content: [{ type: "text", text: "ok" }] };
    });
    const client = await withModernVersion("2027-01-01", () => open(server.clientSide, { protocol: "2027-01-01" }));
    expect((await client.callTool("echo")).content).toEqual([{ type: "text", text: "ok" }]);
    const calls = server.messages("tools/call");
    expect(calls.map((c) => metaOf(c)[ENVELOPE_VERSION])).toEqual(["2027-01-01", "2026-07-28"]);
    expect((calls[0] as { id: unknown }).id).not.toEqual((calls[1] as { id: unknown }).id);

    const stuck = modernServer();
    stuck.on("tools/call", (request, s) =>
      replyError(s, request.id, -32022, "Unsupported protocol version", { supported: ["2099-01-01"], requested: "2026-07-28" }),
    );
    const other = await open(stuck.clientSide);
    const error = await other.callTool("echo").catch((e) => e);
    expect(error).toBeInstanceOf(UnsupportedProtocolVersionError);
    expect(error.message).toMatch(/supports 2099-01-01; this client speaks 2026-07-28.*Reconnect/);
  });

  it("checklist 33: every DiscoverResult field is parsed and exposed", async () => {
    const server = modernServer();
    const client = await open(server.clientSide);
    expect(client.discover).toEqual(DISCOVER_RESULT);
    expect(client.discover?.supportedVersions).toEqual(["2026-07-28"]);
    expect(client.discover?.ttlMs).toBe(60_000);
    expect(client.discover?.cacheScope).toBe("public");
    expect(client.serverCapabilities?.extensions).toEqual({ "io.modelcontextprotocol/tasks": {} });
    expect(client.serverInfo).toEqual({ name: "modern-scripted", version: "2.0.0" });
    expect(client.instructions).toBe("modern instructions");
  });

  it("a DiscoverResult with only 2025 versions is a 2025 server; a pinned version never falls back", async () => {
    const server = new ScriptedServer();
    server.on("server/discover", () => ({ resultType: "complete", supportedVersions: ["2025-11-25"], capabilities: {} }));
    expect((await open(server.clientSide)).era).toBe("legacy");
    const old = new ScriptedServer();
    const error = await open(old.clientSide, { protocol: "2026-07-28" }).catch((e) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error.message).toMatch(/pinned.*use protocol "auto"/);
    expect(old.messages("initialize")).toHaveLength(0);
  });

  it("checklist 13: concurrent requests all refused with -32022 move to the new version once and all succeed", async () => {
    const server = modernServer();
    server.on("server/discover", () => ({ ...DISCOVER_RESULT, supportedVersions: ["2026-07-28", "2027-01-01"] }));
    server.on("tools/call", (request, s) => {
      if (metaOf(request)[ENVELOPE_VERSION] === "2027-01-01")
        return replyError(s, request.id, -32022, "Unsupported protocol version", { supported: ["2026-07-28"], requested: "2027-01-01" });
      return { resultType: "complete", content: [{ type: "text", text: "ok" }] };
    });
    const client = await withModernVersion("2027-01-01", () => open(server.clientSide, { protocol: "2027-01-01", autoListen: false }));
    const results = await withModernVersion("2027-01-01", () => Promise.all([1, 2, 3].map(() => client.callTool("echo"))));
    expect(results.map((r) => r.content)).toEqual([1, 2, 3].map(() => [{ type: "text", text: "ok" }]));
    const versions = server.messages("tools/call").map((c) => metaOf(c)[ENVELOPE_VERSION]);
    expect(versions).toEqual(["2027-01-01", "2027-01-01", "2027-01-01", "2026-07-28", "2026-07-28", "2026-07-28"]);
  });

  it('a pinned protocol must be a version this client speaks: "latest" or an unknown date is a ConfigError, nothing is sent', async () => {
    expect(isModernVersion("latest")).toBe(false);
    expect(isModernVersion("2026-07-28")).toBe(true);
    for (const protocol of ["latest", "2027-01-01", "2026-07-28x"]) {
      const server = modernServer();
      const error = await open(server.clientSide, { protocol }).catch((e) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.field).toBe("protocol");
      expect(error.message).toMatch(/not a version this client speaks.*2026-07-28, 2025-11-25/);
      expect(server.received).toHaveLength(0);
    }
  });
});

/** Runs `fn` with `version` added to the 2026-era versions this client speaks (newest first). */
async function withModernVersion<T>(version: string, fn: () => Promise<T>): Promise<T> {
  const versions = MODERN_PROTOCOL_VERSIONS as unknown as string[];
  versions.unshift(version);
  try {
    return await fn();
  } finally {
    versions.splice(versions.indexOf(version), 1);
  }
}
