/** The MRTR rounds' state (src/gateway/input-required.ts): what a client never comes back for is cancelled upstream and forgotten. */
import { describe, expect, it } from "vitest";
import { InputRounds, MAX_SUSPENDED_PER_PRINCIPAL } from "../../src/gateway/input-required.js";
import { MAX_HELD_LOG_BYTES, MAX_HELD_LOGS } from "../../src/gateway/held-logs.js";
import type { LogParams } from "../../src/connection/events.js";
import type { Downstream } from "../../src/gateway/downstream.js";
import type { CallHandlers } from "../../src/client/call-handlers.js";

const downstream = (principal: string | undefined): Downstream => ({
  principal,
  protocolVersion: "2026-07-28",
  clientInfo: undefined,
  capabilities: { roots: {} },
  logLevel: undefined,
  inFlight: new Map(),
  push: () => undefined,
});

/** A call that asks for roots, then waits until its signal aborts; `seen` says how it ended. */
function askingCall(seen: string[]) {
  return async (handlers: CallHandlers, signal: AbortSignal) => {
    const roots = Promise.resolve(handlers.onRoots!({ signal, method: "roots/list" })).catch(
      (error: Error) => (seen.push(`roots failed: ${error.message}`), []),
    );
    await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    await roots;
    seen.push("call aborted");
    return {};
  };
}

/** A call that asks for roots `asks` times, then waits for `finish()`; `log()` logs as its server would. */
function loggingCall(asks: number) {
  const rounds = new InputRounds();
  const signal = new AbortController().signal;
  let onLog: ((params: LogParams) => void) | undefined;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const run = async (handlers: CallHandlers, callSignal: AbortSignal) => {
    onLog = handlers.onLog;
    for (let i = 0; i < asks; i++) await handlers.onRoots!({ signal: callSignal, method: "roots/list" });
    await finished;
    return { content: [] };
  };
  return {
    log: (params: LogParams) => onLog!(params),
    finish,
    /** A round of the call: its first request, or a retry (`retry`), with its log level's stream (`logTo`) if it set one. */
    round: (retry: Record<string, unknown> | undefined, logTo: ((params: LogParams) => void) | undefined) =>
      rounds.call("tools/call t", { name: "t", ...retry }, downstream("ada"), signal, run, logTo),
  };
}

/** A retry of the round that answered `asked`, answering its roots request `key`. */
const answer = (asked: Record<string, unknown>, key: string) => ({ requestState: asked.requestState, inputResponses: { [key]: { roots: [] } } });

describe("InputRounds", () => {
  it("a call whose client never comes back is cancelled upstream after the TTL, and its state is forgotten", async () => {
    const rounds = new InputRounds(50);
    const seen: string[] = [];
    const first = await rounds.call("tools/call t", { name: "t" }, downstream("ada"), new AbortController().signal, askingCall(seen));
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { "roots-1": { method: "roots/list" } } });
    expect(rounds.size).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(rounds.size).toBe(0);
    expect(seen).toEqual([expect.stringMatching(/^roots failed/), "call aborted"]);
    await expect(
      rounds.call(
        "tools/call t",
        { name: "t", requestState: first.requestState, inputResponses: {} },
        downstream("ada"),
        new AbortController().signal,
        askingCall([]),
      ),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it(`a principal may keep at most ${MAX_SUSPENDED_PER_PRINCIPAL} calls waiting; another principal is not held back`, async () => {
    const rounds = new InputRounds();
    const signal = new AbortController().signal;
    for (let i = 0; i < MAX_SUSPENDED_PER_PRINCIPAL; i++) await rounds.call("tools/call t", { name: "t" }, downstream("ada"), signal, askingCall([]));
    const seen: string[] = [];
    await expect(rounds.call("tools/call t", { name: "t" }, downstream("ada"), signal, askingCall(seen))).rejects.toMatchObject({ message: /Too many calls/ });
    expect(seen).toContain("call aborted");
    await expect(rounds.call("tools/call t", { name: "t" }, downstream("bob"), signal, askingCall([]))).resolves.toMatchObject({
      resultType: "input_required",
    });
    rounds.close();
    expect(rounds.size).toBe(0);
  });
  it(`logs between rounds wait for the next round that asks for logs, at most ${MAX_HELD_LOGS} of them, and it is told how many were dropped`, async () => {
    const call = loggingCall(1);
    const first: LogParams[] = [];
    const asked = await call.round(undefined, (params) => first.push(params));
    for (let i = 0; i < MAX_HELD_LOGS + 3; i++) call.log({ level: "info", data: `between ${i}` });
    const second: LogParams[] = [];
    const retry = call.round(answer(asked, "roots-1"), (params) => second.push(params));
    await new Promise((resolve) => setTimeout(resolve, 20));
    call.log({ level: "info", data: "in the second round" });
    call.finish();
    await expect(retry).resolves.toEqual({ content: [] });
    expect(first).toEqual([]);
    expect(second[0]).toMatchObject({ level: "warning", data: expect.stringMatching(/^3 earlier log messages of tools\/call t were dropped/) });
    expect(second.slice(1).map((p) => p.data)).toEqual([...Array.from({ length: MAX_HELD_LOGS }, (_, i) => `between ${i + 3}`), "in the second round"]);
  });

  it(`logs held between rounds are bounded by size too: at most ${MAX_HELD_LOG_BYTES} bytes of JSON, the oldest dropped`, async () => {
    const call = loggingCall(1);
    const asked = await call.round(undefined, () => undefined);
    const big = "x".repeat(MAX_HELD_LOG_BYTES * 0.4);
    for (let i = 0; i < 4; i++) call.log({ level: "info", data: `${i}${big}` });
    const seen: LogParams[] = [];
    call.finish();
    await call.round(answer(asked, "roots-1"), (params) => seen.push(params));
    expect(seen[0]).toMatchObject({ level: "warning", data: expect.stringMatching(/^2 earlier log messages/) });
    expect(seen.slice(1).map((p) => String(p.data)[0])).toEqual(["2", "3"]);
  });

  it("a round that set no log level gets no logs, and none are held for later rounds", async () => {
    const call = loggingCall(3);
    const asked = await call.round(undefined, undefined);
    call.log({ level: "error", data: "nobody asked" });
    const seen: LogParams[] = [];
    const again = await call.round(answer(asked, "roots-1"), (params) => seen.push(params));
    expect(again).toMatchObject({ resultType: "input_required" });
    expect(seen).toEqual([]);
    // A round that asked for logs, then one that did not: what came before and after the latter is not kept.
    call.log({ level: "error", data: "before a round without a level" });
    const third = await call.round(answer(again, "roots-2"), undefined);
    call.log({ level: "error", data: "after a round without a level" });
    call.finish();
    const last: LogParams[] = [];
    await expect(call.round(answer(third, "roots-3"), (params) => last.push(params))).resolves.toEqual({ content: [] });
    expect(last).toEqual([]);
  });
});
