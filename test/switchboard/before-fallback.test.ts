/**
 * The `beforeFallback` hook on real servers: two stdio echo servers, the primary killed. The hook sees
 * the call, the failed server, its error and the fallback; it may let the move happen, refuse it (the
 * call fails with the primary's own error), give the fallback other arguments, or throw (a refusal).
 */
import { describe, expect, it } from "vitest";
import type { FallbackDecision, FallbackRequest } from "../../src/index.js";
import { TransportError } from "../../src/jsonrpc/errors.js";
import type { Switchboard } from "../../src/switchboard/switchboard.js";
import { waitFor } from "../helpers/processes.js";
import { boardsAfterEach, echoServer, fastRestart, node, pidOf } from "./board-helpers.js";

const board = boardsAfterEach();

/** A board whose primary has a backup, and the hook given; `down` kills the primary for good. */
async function pair(hook: (request: FallbackRequest) => FallbackDecision | Promise<FallbackDecision>) {
  const requests: FallbackRequest[] = [];
  const b = board({
    servers: {
      primary: { command: node, args: [echoServer], fallbacks: ["backup"], restart: { ...fastRestart, maxRestarts: 0 } },
      backup: { command: node, args: [echoServer] },
    },
    hooks: {
      beforeFallback: (request) => {
        requests.push({ ...request });
        return hook(request);
      },
    },
  });
  const moves: string[] = [];
  const hookErrors: string[] = [];
  b.on("fallback", (e) => moves.push(`${e.from}->${e.to}`));
  b.on("error", (e) => hookErrors.push(e.error.message));
  await b.start();
  return { b, requests, moves, hookErrors };
}

async function killPrimary(b: Switchboard): Promise<void> {
  process.kill(pidOf(b, "primary"), "SIGKILL");
  await waitFor(() => b.status().primary.state === "down");
}

const text = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

describe("beforeFallback", () => {
  it("is asked with the call, the failed server, its error and the fallback, and lets the call move", async () => {
    const { b, requests, moves } = await pair(() => undefined);
    await killPrimary(b);
    expect(text(await b.callTool("primary__echo", { text: "hello" }))).toBe("hello");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      method: "tools/call",
      name: "primary__echo",
      tool: "echo",
      args: { text: "hello" },
      principal: undefined,
      failed: "primary",
      fallback: "backup",
      attempts: [],
    });
    expect(requests[0].error).toBeInstanceOf(Error);
    expect(requests[0].reason).toMatch(/down/);
    expect(moves).toEqual(["primary->backup"]);
  });

  it("refuses the move with false: the call fails with the failed server's own error, and no fallback is tried", async () => {
    const { b, requests, moves } = await pair(() => false);
    await killPrimary(b);
    const error = await b.callTool("primary__echo", { text: "hello" }).catch((e: unknown) => e);
    expect(requests).toHaveLength(1);
    expect(error).toBe(requests[0].error);
    expect((error as TransportError).server).toBe("primary");
    expect(moves).toEqual([]);
  });

  it("gives the fallback other arguments (an async hook)", async () => {
    const { b } = await pair(async (request) => {
      await new Promise((r) => setTimeout(r, 5));
      return { args: { text: `${(request.args as { text: string }).text} via ${request.fallback}` } };
    });
    await killPrimary(b);
    expect(text(await b.callTool("primary__echo", { text: "hello" }))).toBe("hello via backup");
  });

  it("refuses a move of a call in flight when the primary is killed under it", async () => {
    const { b, requests, moves } = await pair(() => false);
    const pending = b.callTool("primary__slow", { ms: 3000 }, { idempotent: true }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 200));
    process.kill(pidOf(b, "primary"), "SIGKILL");
    const error = await pending;
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toBe(requests[0].error);
    expect(requests[0].reason).toMatch(/idempotent/);
    expect(moves).toEqual([]);
  });

  it("treats a hook that throws as a refusal: the original error, saying why, and an error event", async () => {
    const { b, requests, moves, hookErrors } = await pair(() => {
      throw new Error("region policy unavailable");
    });
    await killPrimary(b);
    const error = await b.callTool("primary__echo", { text: "hello" }).catch((e: unknown) => e);
    expect(error).toBe(requests[0].error);
    expect((error as Error).message).toMatch(/not moved to fallback "backup": the beforeFallback hook threw: region policy unavailable/);
    expect(moves).toEqual([]);
    expect(hookErrors).toEqual([expect.stringMatching(/beforeFallback \(primary__echo, "primary" -> "backup"\): region policy unavailable/)]);
  });
});
