/**
 * One deadline bounds a whole 2026-era call: its MRTR rounds, the user's input handlers between them,
 * and the polling of a task. Nothing (timer, listener) is left behind when the call settles.
 */
import { describe, expect, it } from "vitest";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { connect, RequestCancelledError, RequestTimeoutError } from "../../src/index.js";
import type { JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { modernServer } from "../helpers/modern-server.js";

const track = closeAfterEach();

const ELICIT = { method: "elicitation/create", params: { mode: "form", message: "Deploy?", requestedSchema: { type: "object", properties: {} } } };
const liveTimeouts = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));

function params(request: unknown): Record<string, unknown> {
  return (request as JsonRpcRequest).params as Record<string, unknown>;
}

describe("a call's deadline (2026 era)", () => {
  it("bounds the input handlers of an MRTR round: a hanging elicitation handler times out at timeoutMs, leaving no timer", async () => {
    const server = modernServer();
    server.on("tools/call", () => ({ resultType: "input_required", inputRequests: { ok: ELICIT } }));
    let handlerSignal: AbortSignal | undefined;
    const client = await connect(server.clientSide, {
      onElicitation: (_params, context) => {
        handlerSignal = context.signal;
        return new Promise(() => {}); // never answers
      },
    });
    track(client);
    await tick();
    const before = liveTimeouts();
    const started = Date.now();
    const error = await client.callTool("deploy", {}, { timeoutMs: 200 }).catch((e) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error.message).toMatch(/within 200 ms \(timeoutMs/);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(handlerSignal?.aborted).toBe(true);
    await tick();
    expect(liveTimeouts()).toBeLessThanOrEqual(before);
  });

  it("bounds the rounds together: each retry gets what remains of maxTotalTimeoutMs, not a fresh timeout", async () => {
    const server = modernServer();
    // Every round answers after 80 ms and asks again; each round alone is well within timeoutMs.
    server.on("tools/call", (request, s) => {
      setTimeout(
        () =>
          s.send({ jsonrpc: "2.0", id: request.id, result: { resultType: "input_required", requestState: `r${String(params(request).requestState ?? 0)}` } }),
        80,
      );
      return "silent";
    });
    const client = await connect(server.clientSide);
    track(client);
    const started = Date.now();
    const error = await client.callTool("slow", {}, { timeoutMs: 5000, maxTotalTimeoutMs: 500 }).catch((e) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error.message).toMatch(/maxTotalTimeoutMs/);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("bounds a task's polling (maxTotalTimeoutMs), then cancels the task", async () => {
    const server = modernServer();
    server.on("tools/call", () => ({ resultType: "task", task: { taskId: "t-1", status: "working", pollIntervalMs: 100 } }));
    server.on("tasks/get", () => ({ resultType: "complete", task: { taskId: "t-1", status: "working", pollIntervalMs: 100 } }));
    server.on("tasks/cancel", () => ({ resultType: "complete" }));
    const client = await connect(server.clientSide, { tasks: true });
    track(client);
    await tick();
    const before = liveTimeouts();
    const started = Date.now();
    const error = await client.callTool("long", {}, { maxTotalTimeoutMs: 350 }).catch((e) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(Date.now() - started).toBeLessThan(1000);
    await tick(50);
    expect(server.messages("tasks/cancel")).toHaveLength(1);
    expect(liveTimeouts()).toBeLessThanOrEqual(before);
  });

  it("the caller's signal still cancels a call waiting on its handlers", async () => {
    const server = modernServer();
    server.on("tools/call", () => ({ resultType: "input_required", inputRequests: { ok: ELICIT } }));
    const client = await connect(server.clientSide, { onElicitation: () => new Promise(() => {}) });
    track(client);
    const controller = new AbortController();
    const call = client.callTool("deploy", {}, { signal: controller.signal }).catch((e) => e);
    await tick(50);
    controller.abort();
    expect(await call).toBeInstanceOf(RequestCancelledError);
  });
});
