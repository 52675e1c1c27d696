import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { serveStdio } from "../../src/gateway/stdio.js";
import type { SwitchboardInit } from "../../src/switchboard/switchboard.js";
import { filesServer, gatewaysAfterEach, echo } from "./helpers.js";
import { startSdkV2Http } from "../fixtures/sdk-v2-http.js";

const { board } = gatewaysAfterEach();

/** The gateway on a pair of in-memory pipes: lines in, each line out parsed. */
async function stdioGateway(servers: SwitchboardInit["servers"] = { echo }) {
  const b = board({ servers });
  await b.start();
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: unknown[] = [];
  let buffered = "";
  output.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let at = buffered.indexOf("\n"); at !== -1; at = buffered.indexOf("\n")) {
      lines.push(JSON.parse(buffered.slice(0, at)));
      buffered = buffered.slice(at + 1);
    }
  });
  const gateway = serveStdio(b, { maxBodyBytes: 4096 }, input, output);
  const send = (value: unknown) => input.write(typeof value === "string" ? `${value}\n` : `${JSON.stringify(value)}\n`);
  const reply = async (id: number) => {
    for (let i = 0; i < 200; i++) {
      const found = lines.find((l) => (l as { id?: unknown }).id === id);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no reply to ${id}`);
  };
  return { gateway, input, lines, send, reply, board: b };
}

describe("serveStdio: one client over newline-delimited JSON", () => {
  it("answers initialize, lists and calls, with progress on stdout before the response", async () => {
    const { gateway, input, lines, send, reply } = await stdioGateway();
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    expect(await reply(1)).toMatchObject({ result: { protocolVersion: "2025-06-18", serverInfo: { name: "mcp-switchboard-gateway" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo__progress", arguments: { steps: 2, delayMs: 1 }, _meta: { progressToken: "p" } },
    });
    expect(await reply(2)).toMatchObject({ result: { content: [{ type: "text", text: "done" }] } });
    const progress = lines.filter((l) => (l as { method?: string }).method === "notifications/progress");
    expect(progress.map((p) => (p as { params: { progressToken: string; progress: number } }).params)).toMatchObject([
      { progressToken: "p", progress: 1 },
      { progressToken: "p", progress: 2 },
    ]);
    input.end();
    await gateway.closed;
  });

  it("bad lines get -32700 or -32600 and the session goes on", async () => {
    const { gateway, lines, send, reply } = await stdioGateway();
    send("{oops");
    send({ jsonrpc: "1.0", id: 5 });
    send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo__echo", arguments: { text: "y".repeat(5000) } } }));
    send({ jsonrpc: "2.0", id: 4, method: "ping" });
    expect(await reply(4)).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    const errors = lines.filter((l) => (l as { id?: unknown }).id === null).map((l) => (l as { error: { code: number } }).error.code);
    expect(errors).toEqual([-32700, -32600, -32700]);
    gateway.close();
  });
});

describe("serveStdio: the 2026-07-28 era, request by request", () => {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  };

  it("answers server/discover and calls without initialize, with progress, and removed methods are -32601", async () => {
    const { gateway, lines, send, reply } = await stdioGateway();
    send({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } });
    expect(await reply(1)).toMatchObject({ result: { resultType: "complete", supportedVersions: ["2026-07-28"], ttlMs: 0 } });
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "echo__progress", arguments: { steps: 2, delayMs: 1 }, _meta: { ...meta, progressToken: "p" } },
    });
    expect(await reply(2)).toMatchObject({ result: { resultType: "complete", content: [{ type: "text", text: "done" }] } });
    expect(lines.filter((l) => (l as { method?: string }).method === "notifications/progress")).toHaveLength(2);
    send({ jsonrpc: "2.0", id: 3, method: "ping", params: { _meta: meta } });
    expect(await reply(3)).toMatchObject({ error: { code: -32601 } });
    send({ jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } } });
    expect(await reply(4)).toMatchObject({ error: { code: -32602 } });
    gateway.close();
  });

  it("a request that names a log level gets its call's logs at that level on stdout before its response; one that names none gets none", async () => {
    const upstream = await startSdkV2Http("reject");
    try {
      const { gateway, lines, send, reply } = await stdioGateway({ modern: { url: upstream.url } });
      const logs = () => lines.filter((l) => (l as { method?: string }).method === "notifications/message") as { params: { level: string } }[];
      send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "modern__chatty", arguments: {}, _meta: meta } });
      expect(await reply(1)).toMatchObject({ result: { content: [{ type: "text", text: "said it" }] } });
      expect(logs()).toHaveLength(0);
      const levelled = { ...meta, "io.modelcontextprotocol/logLevel": "info" };
      send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "modern__chatty", arguments: {}, _meta: levelled } });
      expect(await reply(2)).toMatchObject({ result: { content: [{ type: "text", text: "said it" }] } });
      expect(logs().map((l) => l.params.level)).toEqual(["info", "warning"]);
      expect(lines.findIndex((l) => (l as { id?: number }).id === 2)).toBeGreaterThan(lines.indexOf(logs()[1]));
      gateway.close();
    } finally {
      await upstream.close();
    }
  });

  it("a listen gets its acknowledgement and tagged list changes until the client cancels it", async () => {
    const { gateway, lines, send, board: b } = await stdioGateway();
    send({ jsonrpc: "2.0", id: "l1", method: "subscriptions/listen", params: { _meta: meta, notifications: { promptsListChanged: true } } });
    await vi.waitFor(() => expect(lines.some((l) => (l as { method?: string }).method === "notifications/subscriptions/acknowledged")).toBe(true));
    b.emit("listsChanged", { server: "echo" });
    await vi.waitFor(() =>
      expect(lines).toContainEqual({
        jsonrpc: "2.0",
        method: "notifications/prompts/list_changed",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": "l1" } },
      }),
    );
    send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "l1" } });
    await new Promise((r) => setTimeout(r, 50));
    const before = lines.length;
    b.emit("listsChanged", { server: "echo" });
    await new Promise((r) => setTimeout(r, 50));
    expect(lines.length).toBe(before);
    gateway.close();
  });

  it("a listen's resourceSubscriptions: acknowledged with the URIs it got, updates tagged, unsubscribed upstream on cancel", async () => {
    const { calls, upstream, updated } = await filesServer();
    try {
      const { gateway, lines, send } = await stdioGateway({ files: { url: upstream.url } });
      const notifications = { resourceSubscriptions: ["test://notes", "test://nowhere"] };
      send({ jsonrpc: "2.0", id: "l2", method: "subscriptions/listen", params: { _meta: meta, notifications } });
      await vi.waitFor(() =>
        expect(lines).toContainEqual({
          jsonrpc: "2.0",
          method: "notifications/subscriptions/acknowledged",
          params: { notifications: { resourceSubscriptions: ["test://notes"] }, _meta: { "io.modelcontextprotocol/subscriptionId": "l2" } },
        }),
      );
      await updated("test://notes");
      await vi.waitFor(() =>
        expect(lines).toContainEqual({
          jsonrpc: "2.0",
          method: "notifications/resources/updated",
          params: { uri: "test://notes", _meta: { "io.modelcontextprotocol/subscriptionId": "l2" } },
        }),
      );
      send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "l2" } });
      await vi.waitFor(() => expect(calls).toEqual(["subscribe test://notes", "unsubscribe test://notes"]));
      gateway.close();
    } finally {
      await upstream.close();
    }
  });
});
