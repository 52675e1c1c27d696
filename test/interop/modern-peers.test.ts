/**
 * Auto negotiation against real servers from npm, each reaching `ready` in the right era with the
 * expected first wire message: the SDK v2 server (`@modelcontextprotocol/server`) 2026-only and
 * dual-era over stdio and Streamable HTTP, the 2025-only SDK v1 server over stdio (answers -32601 to
 * the probe), a 2025 server that exits on any request before initialize, and server-everything.
 * Also an MRTR round trip (elicitation, sampling, roots) and listen notifications from the SDK v2 server.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { connect, McpClient, type ClientOptions, type JsonRpcMessage, type Transport } from "../../src/index.js";
import { StdioTransport } from "../../src/transports/stdio.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import { startSdkV2Http } from "../fixtures/sdk-v2-http.js";

const modernStdio = fileURLToPath(new URL("../../examples/servers/modern-stdio.mjs", import.meta.url));
const echoServer = fileURLToPath(new URL("../../examples/servers/echo-server.mjs", import.meta.url));
const rawResponder = fileURLToPath(new URL("../../examples/servers/raw-responder.mjs", import.meta.url));
const everything = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));

// Registered first so it runs last (after hooks run in reverse): once everything tracked is closed.
afterEach(() => {
  expect(liveProcessCount()).toBe(0);
});
const track = closeAfterEach();

/** A transport that records what the client writes. */
function recording(transport: Transport): { transport: Transport; sent: JsonRpcMessage[] } {
  const sent: JsonRpcMessage[] = [];
  const proxy = new Proxy(transport, {
    get(target, property) {
      if (property === "send") return (message: JsonRpcMessage, options?: unknown) => (sent.push(message), target.send(message, options as never));
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { transport: proxy, sent };
}

async function overStdio(args: string[], env?: Record<string, string>, options: ClientOptions = {}) {
  // A fresh identity per test (a cwd-less env change would share one): the verdict cache must not leak between cases.
  const { transport, sent } = recording(new StdioTransport({ command: process.execPath, args: [...args, `--case=${Math.random()}`], env }));
  const client = await connect(transport, { requestTimeoutMs: 15_000, ...options });
  track(client);
  return { client, sent, transport };
}

const methods = (sent: JsonRpcMessage[]) => sent.map((m) => ("method" in m ? m.method : "(response)"));

describe("auto negotiation against real servers", () => {
  it("SDK v2 over stdio, 2026-only: modern, first message server/discover, initialize never sent", async () => {
    const { client, sent } = await overStdio([modernStdio, "modern-only"]);
    expect(client.era).toBe("modern");
    expect(client.serverInfo?.name).toBe("modern-stdio-modern-only");
    expect(methods(sent)[0]).toBe("server/discover");
    expect(methods(sent)).not.toContain("initialize");
    expect((await client.callTool("add", { a: 2, b: 3 })).content).toEqual([{ type: "text", text: "5" }]);
  });

  it("SDK v2 over stdio, dual-era: modern (the newer era wins)", async () => {
    const { client, sent } = await overStdio([modernStdio, "dual"]);
    expect(client.era).toBe("modern");
    expect(methods(sent)[0]).toBe("server/discover");
    expect((await client.listTools()).map((t) => t.name)).toContain("echo");
  });

  it("SDK v2 over stdio, dual-era, protocol legacy: the 2025 era with initialize first", async () => {
    const { client, sent } = await overStdio([modernStdio, "dual"], undefined, { protocol: "legacy" });
    expect(client.era).toBe("legacy");
    expect(methods(sent)[0]).toBe("initialize");
    expect((await client.callTool("echo", { text: "old" })).content).toEqual([{ type: "text", text: "old" }]);
  });

  it("SDK v1 over stdio (2025 only, answers -32601 to the probe): legacy, initialize after server/discover", async () => {
    const { client, sent } = await overStdio([echoServer]);
    expect(client.era).toBe("legacy");
    expect(client.serverInfo?.name).toBe("echo-server");
    expect(methods(sent).slice(0, 2)).toEqual(["server/discover", "initialize"]);
    expect((await client.callTool("echo", { text: "v1" })).content).toEqual([{ type: "text", text: "v1" }]);
  });

  it("checklist 9: a 2025 server that exits on a request before initialize is respawned, then initialized", async () => {
    const { client, sent, transport } = await overStdio([rawResponder], { RAW_EXIT_BEFORE_INITIALIZE: "1" });
    expect(client.era).toBe("legacy");
    expect(methods(sent).slice(0, 2)).toEqual(["server/discover", "initialize"]);
    expect(transport.pid).toBeDefined();
    expect((await client.callTool("echo", { text: "after respawn" })).content).toEqual([{ type: "text", text: "after respawn" }]);
  });

  it("checklist 9: a 2025 server that stays silent on the probe gets initialize after the probe timeout", async () => {
    const { client, sent } = await overStdio([rawResponder], { RAW_SILENT_BEFORE_INITIALIZE: "1" }, { probeTimeoutMs: 300 });
    expect(client.era).toBe("legacy");
    // The unanswered probe is cancelled before initialize goes out.
    expect(methods(sent).slice(0, 3)).toEqual(["server/discover", "notifications/cancelled", "initialize"]);
  });

  it("server-everything over stdio reaches ready in auto mode", async () => {
    const { client, sent } = await overStdio([everything, "stdio"]);
    expect(methods(sent)[0]).toBe("server/discover");
    // server-everything 2026.8.31 is built on the 2025 SDK: it answers the probe with an error.
    expect(client.era).toBe("legacy");
    expect(methods(sent).includes("initialize")).toBe(client.era === "legacy");
    expect((await client.listTools()).length).toBeGreaterThan(0);
  }, 30_000);

  it.each([
    ["2026-only", "reject"],
    ["dual-era", "stateless"],
  ] as const)("SDK v2 over Streamable HTTP, %s: modern, first POST server/discover with the 2026 headers", async (_name, legacy) => {
    const server = await startSdkV2Http(legacy);
    track(server);
    const client = await connect({ url: server.url });
    track(client);
    expect(client.era).toBe("modern");
    expect(client.serverInfo?.name).toBe(`sdk-v2-http-${legacy}`);
    const first = server.requests[0];
    expect(first.body?.method).toBe("server/discover");
    expect(first.headers).toMatchObject({ "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover" });
    expect((await client.callTool("echo", { text: "over http" })).content).toEqual([{ type: "text", text: "over http" }]);
    expect(server.requests.every((r) => r.method === "POST")).toBe(true);
  });

  it("SDK v2 dual-era over Streamable HTTP with protocol legacy: the 2025 era (stateless fallback)", async () => {
    const server = await startSdkV2Http("stateless");
    track(server);
    const client = await connect({ url: server.url }, { protocol: "legacy" });
    track(client);
    expect(client.era).toBe("legacy");
    expect(server.requests[0].body?.method).toBe("initialize");
    expect((await client.callTool("echo", { text: "2025" })).content).toEqual([{ type: "text", text: "2025" }]);
  });
});

describe("2026 features against the SDK v2 server", () => {
  const handlers: ClientOptions = {
    onElicitation: (params) => ({ action: "accept", content: { ok: (params as { message: string }).message.includes("launch") } }),
    onSampling: () => ({ role: "assistant", content: { type: "text", text: "a summary" }, model: "test-model" }),
    roots: [{ uri: "file:///project", name: "project" }],
  };

  it.each(["stdio", "http"] as const)(
    "an MRTR round trip (elicitation, then sampling + roots) through the same handlers as the 2025 era, over %s",
    async (kind) => {
      let client: McpClient;
      if (kind === "stdio") client = (await overStdio([modernStdio, "modern-only"], undefined, handlers)).client;
      else {
        const server = await startSdkV2Http("reject");
        track(server);
        client = await connect({ url: server.url }, handlers);
        track(client);
      }
      expect(client.era).toBe("modern");
      expect((await client.callTool("confirm", { what: "launch" })).content).toEqual([{ type: "text", text: "confirmed launch: true" }]);
      expect((await client.callTool("summarize", { topic: "x" })).content).toEqual([{ type: "text", text: "a summary | file:///project" }]);
    },
  );

  it("listen delivers tools and resource change notifications from the SDK v2 server over HTTP", async () => {
    const server = await startSdkV2Http("reject");
    track(server);
    const client = await connect({ url: server.url });
    track(client);
    const events: string[] = [];
    client.on("toolsChanged", () => events.push("tools"));
    client.on("resourceUpdated", (p) => events.push(`updated ${p.uri}`));
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(subscription.honoured).toMatchObject({ toolsListChanged: true });
    await client.subscribeResource("test://greeting");
    server.notify.toolsChanged();
    server.notify.resourceUpdated("test://greeting");
    await waitFor(() => events.length >= 2);
    expect(events).toEqual(expect.arrayContaining(["tools", "updated test://greeting"]));
    await subscription.close();
    expect(await subscription.closed).toBe("local");
  });
});

async function waitFor(condition: () => boolean, ms = 3000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
