import { describe, expect, it, vi } from "vitest";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { connect } from "../../src/client/connect.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { serveBoard, type Gateway } from "../../src/gateway/index.js";
import type { Switchboard } from "../../src/switchboard/switchboard.js";
import { ConfigError } from "../../src/jsonrpc/errors.js";
import { echo, gatewaysAfterEach, post } from "./helpers.js";

const { serve, sdkClient, track } = gatewaysAfterEach();

/**
 * Starts a 20 s upstream call, cancels it downstream, and waits for its upstream slot to free: without
 * the cancel passed on, the upstream call would hold it for the 20 s.
 */
async function cancelSlowCall(gateway: Gateway & { board: Switchboard }, client: Client): Promise<void> {
  const controller = new AbortController();
  const call = client.callTool({ name: "echo__slow", arguments: { ms: 20_000 } }, undefined, { signal: controller.signal });
  await vi.waitFor(() => expect(gateway.board.status().echo.inFlight).toBe(1));
  controller.abort("changed my mind");
  await expect(call).rejects.toThrow();
  await vi.waitFor(() => expect(gateway.board.status().echo.inFlight).toBe(0), { timeout: 3_000 });
}

describe("serveBoard: the board as one Streamable HTTP server", () => {
  it("listens on 127.0.0.1, a free port and /mcp by default", async () => {
    const gateway = await serve();
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("a bad option is a ConfigError naming its field, before anything listens", async () => {
    const { board } = await serve();
    await expect(serveBoard(board, { port: 70_000 })).rejects.toThrow(/gateway\.port/);
    await expect(serveBoard(board, { path: "mcp" })).rejects.toThrow(/gateway\.path/);
    await expect(serveBoard(board, { maxBodyBytes: 0 })).rejects.toThrow(ConfigError);
    await expect(serveBoard(board, { maxUnreadBytes: 1.5 })).rejects.toThrow(/gateway\.maxUnreadBytes/);
    await expect(serveBoard(board, { auth: { apiKeys: {} } })).rejects.toThrow(/gateway\.auth\.apiKeys/);
  });

  it("the official SDK client lists the board's tools, named as board.listTools() names them, and calls them", async () => {
    const gateway = await serve({ servers: { one: echo, two: echo } });
    const client = await sdkClient(gateway.url);
    expect(client.getServerVersion()?.name).toBe("mcp-switchboard-gateway");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("one__echo");
    expect(names).toContain("two__add");
    const result = await client.callTool({ name: "two__add", arguments: { a: 2, b: 3 } });
    expect(result.content).toEqual([{ type: "text", text: "5" }]);
    expect(gateway.sessions).toBe(1);
  });

  it("our own connect() speaks to it too, and a tool of no server is InvalidParams", async () => {
    const gateway = await serve();
    const client = track(await connect({ url: gateway.url }, { protocol: "legacy" }));
    const result = await client.callTool("echo__echo", { text: "hi" });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    await expect(client.callTool("nobody__nope", {})).rejects.toMatchObject({ code: -32602 });
  });

  it("passes progress through on the request's own stream", async () => {
    const gateway = await serve();
    const client = await sdkClient(gateway.url);
    const seen: number[] = [];
    const result = await client.callTool({ name: "echo__progress", arguments: { steps: 3, delayMs: 5 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("a downstream cancel aborts the upstream call", async () => {
    const gateway = await serve();
    const client = await sdkClient(gateway.url);
    await cancelSlowCall(gateway, client);
  });

  it("a call after a cancelled one runs to its end: a cancelled call's signal is never reused", async () => {
    const gateway = await serve();
    const client = await sdkClient(gateway.url);
    for (let round = 0; round < 3; round++) {
      await cancelSlowCall(gateway, client);
      const results = await Promise.all([1, 2].map((n) => client.callTool({ name: "echo__echo", arguments: { text: `after ${n}` } })));
      expect(results.map((r) => r.content)).toEqual([[{ type: "text", text: "after 1" }], [{ type: "text", text: "after 2" }]]);
    }
  });

  it("serves resources, templates and prompts of the board, and ends a session on DELETE", async () => {
    const gateway = await serve();
    const client = await sdkClient(gateway.url);
    const caps = client.getServerCapabilities();
    expect(caps).toMatchObject({ tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } });
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect(gateway.sessions).toBe(1);
    const transport = client.transport as StreamableHTTPClientTransport;
    const id = transport.sessionId!;
    await transport.terminateSession();
    expect(gateway.sessions).toBe(0);
    const after = await post(gateway.url, JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }), { "mcp-session-id": id });
    expect(after.status).toBe(404);
  });
});
