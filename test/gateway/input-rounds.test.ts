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
    const rounds = new InputRounds();
    const signal = new AbortController().signal;
    let log: ((params: LogParams) => void) | undefined;
    let answered: (() => void) | undefined;
    const run = async (handlers: CallHandlers, callSignal: AbortSignal) => {
      log = handlers.onLog;
      await handlers.onRoots!({ signal: callSignal, method: "roots/list" });
      await new Promise<void>((resolve) => (answered = resolve));
      return { content: [] };
    };
    const first: LogParams[] = [];
    const asked = await rounds.call("tools/call t", { name: "t" }, downstream("ada"), signal, run, (params) => first.push(params));
    for (let i = 0; i < MAX_HELD_LOGS + 3; i++) log!({ level: "info", data: `between ${i}` });
    const second: LogParams[] = [];
    const retry = rounds.call(
      "tools/call t",
      { name: "t", requestState: asked.requestState, inputResponses: { "roots-1": { roots: [] } } },
      downstream("ada"),
      signal,
      run,
      (params) => second.push(params),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    log!({ level: "info", data: "in the second round" });
    answered!();
    await expect(retry).resolves.toEqual({ content: [] });
    expect(first).toEqual([]);
    expect(second[0]).toMatchObject({ level: "warning", data: expect.stringMatching(/^3 earlier log messages of tools\/call t were dropped/) });
    expect(second.slice(1).map((p) => p.data)).toEqual([...Array.from({ length: MAX_HELD_LOGS }, (_, i) => `between ${i + 3}`), "in the second round"]);
  });

  it(`logs held between rounds are bounded by size too: at most ${MAX_HELD_LOG_BYTES} bytes of JSON, the oldest dropped`, async () => {
    const rounds = new InputRounds();
    const signal = new AbortController().signal;
    let log: ((params: LogParams) => void) | undefined;
    const run = async (handlers: CallHandlers, callSignal: AbortSignal) => {
      log = handlers.onLog;
      await handlers.onRoots!({ signal: callSignal, method: "roots/list" });
      return { content: [] };
    };
    const asked = await rounds.call("tools/call t", { name: "t" }, downstream("ada"), signal, run, () => undefined);
    const big = "x".repeat(MAX_HELD_LOG_BYTES * 0.4);
    for (let i = 0; i < 4; i++) log!({ level: "info", data: `${i}${big}` });
    const seen: LogParams[] = [];
    await rounds.call(
      "tools/call t",
      { name: "t", requestState: asked.requestState, inputResponses: { "roots-1": { roots: [] } } },
      downstream("ada"),
      signal,
      run,
      (params) => seen.push(params),
    );
    expect(seen[0]).toMatchObject({ level: "warning", data: expect.stringMatching(/^2 earlier log messages/) });
    expect(seen.slice(1).map((p) => String(p.data)[0])).toEqual(["2", "3"]);
  });

  it("a round that set no log level gets no logs, and none are held for later rounds", async () => {
    const rounds = new InputRounds();
    const signal = new AbortController().signal;
    let log: ((params: LogParams) => void) | undefined;
    const run = async (handlers: CallHandlers, callSignal: AbortSignal) => {
      log = handlers.onLog;
      await handlers.onRoots!({ signal: callSignal, method: "roots/list" });
      await handlers.onRoots!({ signal: callSignal, method: "roots/list" });
      return { content: [] };
    };
    const asked = await rounds.call("tools/call t", { name: "t" }, downstream("ada"), signal, run);
    log!({ level: "error", data: "nobody asked" });
    const seen: LogParams[] = [];
    const again = await rounds.call(
      "tools/call t",
      { name: "t", requestState: asked.requestState, inputResponses: { "roots-1": { roots: [] } } },
      downstream("ada"),
      signal,
      run,
      (params) => seen.push(params),
    );
    expect(again).toMatchObject({ resultType: "input_required" });
    expect(seen).toEqual([]);
  });
});
