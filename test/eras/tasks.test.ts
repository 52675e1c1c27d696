/**
 * The tasks extension (2026 era) when the caller enables it, over a memory pair: declared per request,
 * a `resultType: "task"` call polled to its end at the server's interval, input answered with
 * tasks/update, cancellation with tasks/cancel, progress reported.
 */
import { afterEach, describe, expect, it } from "vitest";
import { connect, McpClient, RequestCancelledError } from "../../src/index.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { ENVELOPE_CAPABILITIES, metaOf, modernServer } from "../helpers/modern-server.js";

let clients: McpClient[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

const TASKS = "io.modelcontextprotocol/tasks";

function taskServer() {
  const server = modernServer();
  let polls = 0;
  let answered: unknown;
  server.on("tools/call", () => ({ resultType: "task", task: { taskId: "t-1", status: "working", ttlMs: null, pollIntervalMs: 40 } }));
  server.on("tasks/get", () => {
    polls++;
    if (polls === 1) return { resultType: "complete", task: { taskId: "t-1", status: "working", statusMessage: "thinking", pollIntervalMs: 40 } };
    if (answered === undefined) {
      return {
        resultType: "complete",
        task: {
          taskId: "t-1",
          status: "input_required",
          pollIntervalMs: 40,
          inputRequests: { ok: { method: "elicitation/create", params: { message: "Go?", requestedSchema: { type: "object", properties: {} } } } },
        },
      };
    }
    return { resultType: "complete", task: { taskId: "t-1", status: "completed", result: { content: [{ type: "text", text: "task done" }], answered } } };
  });
  server.on("tasks/update", (request) => {
    answered = (request.params as { inputResponses: unknown }).inputResponses;
    return { resultType: "complete" };
  });
  server.on("tasks/cancel", () => ({ resultType: "complete" }));
  return server;
}

describe("tasks extension", () => {
  it("checklist 34: extensions are declared per request; a task result is polled at pollIntervalMs, input goes back with tasks/update, callTool resolves with the final result", async () => {
    const server = taskServer();
    const client = await connect(server.clientSide, { tasks: true, onElicitation: () => ({ action: "accept", content: {} }) });
    clients.push(client);
    const progress: (string | undefined)[] = [];
    const started = Date.now();
    const result = await client.callTool("long", {}, { onProgress: (p) => progress.push(p.message) });
    expect(result.content).toEqual([{ type: "text", text: "task done" }]);
    expect((result as unknown as { answered: unknown }).answered).toEqual({ ok: { action: "accept", content: {} } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 40 - 5);
    expect(progress).toEqual(["working", "thinking", "input_required", "completed"]);
    for (const request of server.received.filter((m): m is JsonRpcRequest => "id" in m && "method" in m)) {
      expect((metaOf(request)[ENVELOPE_CAPABILITIES] as { extensions?: Record<string, unknown> }).extensions).toEqual({ [TASKS]: {} });
    }
    const gets = server.messages("tasks/get") as JsonRpcRequest[];
    expect(gets.map((g) => (g.params as { taskId: string }).taskId)).toEqual(["t-1", "t-1", "t-1"]);
    expect(server.messages("tasks/update")).toHaveLength(1);
  });

  it("checklist 34: cancelling a task sends tasks/cancel (not notifications/cancelled)", async () => {
    const server = taskServer();
    server.on("tasks/get", () => ({ resultType: "complete", task: { taskId: "t-1", status: "working", pollIntervalMs: 20 } }));
    const client = await connect(server.clientSide, { tasks: true });
    clients.push(client);
    const controller = new AbortController();
    const call = client.callTool("long", {}, { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 60));
    controller.abort();
    await expect(call).rejects.toBeInstanceOf(RequestCancelledError);
    await new Promise((r) => setTimeout(r, 20));
    expect((server.messages("tasks/cancel")[0] as JsonRpcRequest).params).toMatchObject({ taskId: "t-1" });
    expect(server.messages("notifications/cancelled")).toHaveLength(0);
  });

  it("checklist 34: without the extension, a task result is an error that says how to enable it, and no extension is declared", async () => {
    const server = taskServer();
    const client = await connect(server.clientSide);
    clients.push(client);
    await expect(client.callTool("long")).rejects.toThrow(/tasks extension.*tasks: true/);
    expect(metaOf(server.messages("tools/call")[0])[ENVELOPE_CAPABILITIES]).toEqual({});
  });
});

describe("what the result cache (src/client/result-cache.ts) relies on", () => {
  it("checklist 29: ttlMs and cacheScope of discover, lists and reads reach the client intact", async () => {
    const server = modernServer();
    server.on("resources/read", () => ({ resultType: "complete", ttlMs: 0, cacheScope: "private", contents: [] }));
    const client = await connect(server.clientSide, { enforceCapabilities: false });
    clients.push(client);
    expect(client.discover).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
    expect(await client.request("tools/list")).toMatchObject({ ttlMs: 5000, cacheScope: "private" });
    expect(await client.readResource("a://b")).toMatchObject({ ttlMs: 0, cacheScope: "private" });
  });

  it("checklist 31: an input_required result never reaches the client (so nothing can cache it); only the final result does", async () => {
    const server = modernServer();
    server.on("resources/read", (request) =>
      (request.params as { inputResponses?: unknown }).inputResponses === undefined
        ? { resultType: "input_required", inputRequests: { r: { method: "roots/list" } }, ttlMs: 99_999, cacheScope: "public" }
        : { resultType: "complete", ttlMs: 0, cacheScope: "private", contents: [{ uri: "a://b", text: "fresh" }] },
    );
    const client = await connect(server.clientSide, { enforceCapabilities: false, roots: [] });
    clients.push(client);
    const read = await client.readResource("a://b");
    expect(read).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" });
  });
});
