/**
 * The 2026 era's per-request logs through the gateway: a 2026 client that puts a log level in its
 * request's `_meta` gets, on that request's own event stream, the log messages its call caused at that
 * level or above; one that does not gets none, and a plain JSON answer. Both kinds of upstream: a 2026
 * server (SDK v2) that is asked at the client's level, and a 2025 SDK server that logs on the call's
 * own stream.
 */
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { connect } from "../../src/client/connect.js";
import type { LogParams } from "../../src/connection/events.js";
import { PASS_THROUGH_CAPABILITIES } from "../../src/gateway/index.js";
import { createAskingServer } from "../fixtures/asking-server.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { startSdkV2Http } from "../fixtures/sdk-v2-http.js";
import { gatewaysAfterEach, post } from "./helpers.js";

const { serve, track } = gatewaysAfterEach();
const VERSION = "2026-07-28";

async function modernUpstream() {
  const up = await startSdkV2Http("reject");
  track({ close: () => up.close() });
  return up;
}

/** Our client in the 2026 era at log level `level`; `logs` records what reached it. */
async function modernClient(url: string, level: "info" | "warning") {
  const client = track(await connect({ url }, { protocol: VERSION }));
  expect(client.protocolVersion).toBe(VERSION);
  const logs: LogParams[] = [];
  client.on("log", (params) => logs.push(params));
  await client.setLoggingLevel(level);
  return { client, logs };
}

const levels = (logs: LogParams[]) => logs.map((log) => `${log.level}:${String(log.data)}`);

function rawCall(url: string, name: string, level: string | undefined): Promise<Response> {
  const _meta: Record<string, unknown> = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
  };
  if (level !== undefined) _meta["io.modelcontextprotocol/logLevel"] = level;
  const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: {}, _meta } });
  return post(url, body, { "mcp-protocol-version": VERSION, "mcp-method": "tools/call", "mcp-name": name });
}

describe("2026 per-request logs through the gateway", () => {
  it("a 2026 upstream is asked at the client's level, and its logs reach the client on the call's stream", async () => {
    const up = await modernUpstream();
    const gateway = await serve({ servers: { modern: { url: up.url } } });
    const { client, logs } = await modernClient(gateway.url, "info");
    expect((await client.callTool("modern__chatty", {})).content).toEqual([{ type: "text", text: "said it" }]);
    expect(levels(logs)).toEqual(["info:info from chatty", "warning:warning from chatty"]);
    const upstreamCall = up.requests.find((r) => r.body?.method === "tools/call");
    expect((upstreamCall?.body?.params?._meta as Record<string, unknown>)["io.modelcontextprotocol/logLevel"]).toBe("info");
  });

  it("a 2025 upstream's logs on the call's stream are filtered at the client's level", async () => {
    const asking = track(await startStreamableHttpServer({ stateful: true, createServer: createAskingServer }));
    const gateway = await serve({ servers: { up: { url: asking.url } } });
    const { client, logs } = await modernClient(gateway.url, "warning");
    expect((await client.callTool("up__chatty", {})).content).toEqual([{ type: "text", text: "said it" }]);
    expect(levels(logs)).toEqual(["warning:warning from chatty"]);
  });

  it("a 2025 upstream's log on its GET stream reaches the 2026 client whose call is the only one running there", async () => {
    const asking = track(await startStreamableHttpServer({ stateful: true, createServer: createAskingServer }));
    const gateway = await serve({ servers: { up: { url: asking.url } } });
    const { client, logs } = await modernClient(gateway.url, "warning");
    expect((await client.callTool("up__chatty_unrelated", {})).content).toEqual([{ type: "text", text: "said it" }]);
    await vi.waitFor(() => expect(levels(logs)).toEqual(["warning:warning on the session"]));
  });

  it("a call that asks its client for input logs on each round's own stream", async () => {
    const asking = track(await startStreamableHttpServer({ stateful: true, createServer: createAskingServer }));
    const gateway = await serve({ servers: { up: { url: asking.url } }, client: { capabilities: PASS_THROUGH_CAPABILITIES } });
    const client = track(await connect({ url: gateway.url }, { protocol: VERSION, onElicitation: () => ({ action: "accept", content: { name: "Ada" } }) }));
    const logs: LogParams[] = [];
    client.on("log", (params) => logs.push(params));
    await client.setLoggingLevel("info");
    expect((await client.callTool("up__ask_then_log", {})).content).toEqual([{ type: "text", text: "asked and said it" }]);
    expect(levels(logs)).toEqual(["warning:before asking", "warning:after Ada answered"]);
  });

  it("what a call logs between rounds, while no request of its client is open, comes on the next round's stream", async () => {
    const asking = track(await startStreamableHttpServer({ stateful: true, createServer: createAskingServer }));
    const gateway = await serve({ servers: { up: { url: asking.url } }, client: { capabilities: PASS_THROUGH_CAPABILITIES } });
    // The answer takes long enough that the server's log lands after the first round ended.
    const onElicitation = () =>
      new Promise<{ action: "accept"; content: { name: string } }>((resolve) => setTimeout(() => resolve({ action: "accept", content: { name: "Ada" } }), 200));
    const client = track(await connect({ url: gateway.url }, { protocol: VERSION, onElicitation }));
    const logs: LogParams[] = [];
    client.on("log", (params) => logs.push(params));
    await client.setLoggingLevel("info");
    expect((await client.callTool("up__log_while_asking", {})).content).toEqual([{ type: "text", text: "Ada answered" }]);
    expect(levels(logs)).toEqual(["warning:while waiting"]);
  });

  it.each(["2026-07-28", "legacy"] as const)(
    "a stdio upstream's logs (no stream relates them to a call) reach the 2026 client whose call is the one running there (board client %s)",
    async (protocol) => {
      const script = fileURLToPath(new URL("../../examples/servers/modern-stdio.mjs", import.meta.url));
      const gateway = await serve({ servers: { modern: { command: process.execPath, args: [script, "dual"] } }, client: { protocol } });
      const { client, logs } = await modernClient(gateway.url, "info");
      expect((await client.callTool("modern__chatty", {})).content).toEqual([{ type: "text", text: "said it" }]);
      expect(levels(logs)).toEqual(["info:info from chatty", "warning:warning from chatty"]);
    },
  );

  it("the answer is an event stream only when something comes before it; without a log level, no logs", async () => {
    const up = await modernUpstream();
    const gateway = await serve({ servers: { modern: { url: up.url } } });
    const quiet = await rawCall(gateway.url, "modern__chatty", undefined);
    expect(quiet.headers.get("content-type")).toMatch(/application\/json/);
    expect(((await quiet.json()) as { result: { content: unknown } }).result.content).toEqual([{ type: "text", text: "said it" }]);

    const told = await rawCall(gateway.url, "modern__chatty", "warning");
    expect(told.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events = (await told.text())
      .split("\n")
      .filter((line) => line.startsWith("data: "))
      .map((line) => JSON.parse(line.slice(6)) as { method?: string; id?: number; params?: { level?: string } });
    expect(events.map((e) => e.method ?? `response ${e.id}`)).toEqual(["notifications/message", "response 7"]);
    expect(events[0].params?.level).toBe("warning");
  });

  it("a log level that is none is -32602 with HTTP 400, naming the field and the levels", async () => {
    const gateway = await serve();
    const reply = await rawCall(gateway.url, "echo__echo", "loud");
    expect(reply.status).toBe(400);
    const { error } = (await reply.json()) as { error: { code: number; message: string } };
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('io.modelcontextprotocol/logLevel"] is "loud"');
    expect(error.message).toContain("debug, info, notice");
  });
});
