/**
 * The 2026 era's wire as a raw client sees it, against one gateway for the whole file (a board of the
 * echo server, started once): what our own client hides (headers, status codes, the envelope checks).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveBoard, type Gateway } from "../../src/gateway/index.js";
import { Switchboard } from "../../src/switchboard/switchboard.js";
import { echo, post, postListen } from "./helpers.js";

const VERSION = "2026-07-28";
const envelope = (extra: Record<string, unknown> = {}) => ({
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
  ...extra,
});

/** A raw 2026 POST: the envelope in params._meta and the version header, unless overridden. */
function modern(url: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { _meta: envelope(), ...params } });
  return post(url, body, { "mcp-protocol-version": VERSION, "mcp-method": method, ...headers });
}

let board: Switchboard;
let gateway: Gateway;

beforeAll(async () => {
  board = new Switchboard({ servers: { echo } });
  await board.start();
  gateway = await serveBoard(board, { instructions: "one server" });
});

afterAll(async () => {
  await gateway?.close();
  await board?.stop();
});

describe("the 2026 wire, request by request", () => {
  it("server/discover names the version, capabilities and the gateway, with cache hints", async () => {
    const response = await modern(gateway.url, "server/discover");
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: Record<string, unknown> };
    expect(result).toMatchObject({
      resultType: "complete",
      supportedVersions: [VERSION],
      capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } },
      instructions: "one server",
      ttlMs: 0,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "mcp-switchboard-gateway" } },
    });
    expect(response.headers.get("mcp-session-id")).toBeNull();
  });

  it("every result says resultType; lists say how long they may be cached", async () => {
    const list = (await (await modern(gateway.url, "tools/list")).json()) as { result: Record<string, unknown> };
    expect(list.result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
    const call = (await (await modern(gateway.url, "tools/call", { name: "echo__add", arguments: { a: 1, b: 1 } }, { "mcp-name": "echo__add" })).json()) as {
      result: Record<string, unknown>;
    };
    expect(call.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "2" }] });
    expect(call.result.ttlMs).toBeUndefined();
  });

  it("a malformed request gets 400: no version header -32020, no envelope -32602, headers that disagree -32020, a version it does not speak -32022", async () => {
    const bare = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: envelope() } });
    const cases: Array<[Promise<Response>, number, Record<string, unknown>?]> = [
      [post(gateway.url, bare), -32020],
      [post(gateway.url, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }), { "mcp-protocol-version": VERSION }), -32602],
      [modern(gateway.url, "tools/list", {}, { "mcp-method": "prompts/list" }), -32020],
      [modern(gateway.url, "tools/call", { name: "echo__add" }, { "mcp-name": "echo__echo" }), -32020],
      [
        post(
          gateway.url,
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/list",
            params: { _meta: envelope({ "io.modelcontextprotocol/protocolVersion": "2099-01-01" }) },
          }),
          { "mcp-protocol-version": "2099-01-01" },
        ),
        -32022,
        { supported: [VERSION], requested: "2099-01-01" },
      ],
    ];
    for (const [pending, code, data] of cases) {
      const response = await pending;
      expect(response.status).toBe(400);
      const body = (await response.json()) as { id: unknown; error: { code: number; data?: unknown } };
      expect(body.error.code).toBe(code);
      expect(body.id).toBe(1);
      if (data !== undefined) expect(body.error.data).toEqual(data);
    }
  });

  it("methods the era removed, and unknown ones, are 404 with -32601; an unknown resource is -32602", async () => {
    for (const method of ["ping", "logging/setLevel", "resources/subscribe", "initialize", "no/such"]) {
      const response = await modern(gateway.url, method, method === "initialize" ? { protocolVersion: VERSION } : {});
      expect(response.status, method).toBe(404);
      expect(((await response.json()) as { error: { code: number } }).error.code, method).toBe(-32601);
    }
    const missing = await modern(gateway.url, "resources/read", { uri: "test://nowhere" }, { "mcp-name": "test://nowhere" });
    expect(((await missing.json()) as { error: { code: number } }).error.code).toBe(-32602);
  });

  it("a listen is acknowledged with what it will get, and its notifications carry its id", async () => {
    const controller = new AbortController();
    const response = await postListen(gateway.url, "listen-1", { toolsListChanged: true, resourceSubscriptions: ["test://x"] }, controller.signal);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    let text = "";
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    };
    await until(/acknowledged[^\n]*\n/);
    expect(text).toContain('"notifications":{"toolsListChanged":true}');
    board.emit("listsChanged", { server: "echo" });
    await until(/tools\/list_changed[^\n]*\n/);
    const line = text.split("\n").find((l) => l.includes("tools/list_changed"))!;
    expect(JSON.parse(line.slice("data: ".length))).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "listen-1" } },
    });
    // Asked for tools only: the prompt and resource list changes of the same burst are not sent.
    expect(text).not.toContain("prompts/list_changed");
    controller.abort();
  });
});
