/**
 * The RequestTable over its compact store (pending-store.ts): whatever the order in which requests are
 * added, answered, failed, aborted or timed out, with ids in order or not, gaps, stragglers that make the
 * window spill, and non-numeric ids, every request settles exactly once with its own outcome, and the
 * table is empty (no timer, no listener) once none is pending.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ProtocolError, RequestCancelledError, RequestTimeoutError, TransportError } from "../../src/jsonrpc/errors.js";
import type { JsonRpcId } from "../../src/jsonrpc/messages.js";
import { RequestTable, type PendingRequest } from "../../src/connection/request-table.js";

type Outcome = { kind: "result"; value: unknown } | { kind: "error"; error: unknown };

/** A table with each add's outcome recorded, and the hook's cancellations. */
function harness() {
  const cancelled: Array<{ id: JsonRpcId; reason: string }> = [];
  const table = new RequestTable({ cancelled: (entry: PendingRequest, reason) => cancelled.push({ id: entry.id, reason }) });
  const outcomes = new Map<JsonRpcId, Outcome[]>();
  const add = (id: JsonRpcId, options?: Parameters<RequestTable["add"]>[2]) => {
    const list: Outcome[] = [];
    outcomes.set(id, list);
    table.add(id, "tools/call", options, 60_000).then(
      (value) => list.push({ kind: "result", value }),
      (error: unknown) => list.push({ kind: "error", error }),
    );
  };
  return { table, outcomes, cancelled, add };
}

const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("RequestTable", () => {
  it("any interleaving of adds and settlements settles each request once, with its own outcome", async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("add" as const),
        gap: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 3 }), fc.constant(2000)),
        stringId: fc.boolean(),
      }),
      fc.record({ kind: fc.constantFrom("answer" as const, "fail" as const, "error" as const, "straggle" as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 300 }), async (ops) => {
        const { table, outcomes, add } = harness();
        const pending: JsonRpcId[] = [];
        const expected = new Map<JsonRpcId, string>();
        let next = 0;
        for (const step of ops) {
          if (step.kind === "add") {
            next += step.gap;
            const id: JsonRpcId = step.stringId ? `s-${next}` : next;
            next++;
            add(id);
            pending.push(id);
            continue;
          }
          if (pending.length === 0) continue;
          // "straggle" answers the newest, leaving the oldest pending while the window moves on.
          const index = step.kind === "straggle" ? pending.length - 1 : step.pick % pending.length;
          const [id] = pending.splice(index, 1);
          expect(table.has(id)).toBe(true);
          if (step.kind === "fail") {
            expect(table.reject(id, new TransportError(`lost ${String(id)}`))).toBe(true);
            expected.set(id, `error:lost ${String(id)}`);
          } else if (step.kind === "error") {
            expect(table.settle({ jsonrpc: "2.0", id, error: { code: -32602, message: `bad ${String(id)}` } })).toBe(true);
            expected.set(id, "protocol");
          } else {
            expect(table.settle({ jsonrpc: "2.0", id, result: { id } })).toBe(true);
            expected.set(id, `result:${String(id)}`);
          }
          expect(table.has(id)).toBe(false);
          expect(table.settle({ jsonrpc: "2.0", id, result: {} })).toBe(false);
        }
        expect(table.size).toBe(pending.length);
        for (const id of pending) expect(table.has(id)).toBe(true);
        table.rejectAll(new TransportError("closed"));
        for (const id of pending) expected.set(id, "error:closed");
        await flush();
        expect(table.size).toBe(0);
        expect(table.timerArmed).toBe(false);
        for (const [id, want] of expected) {
          const got = outcomes.get(id)!;
          expect(got).toHaveLength(1);
          const outcome = got[0];
          if (want === "protocol") expect(outcome.kind === "error" && outcome.error instanceof ProtocolError).toBe(true);
          else if (want.startsWith("result:")) expect(outcome).toEqual({ kind: "result", value: { id } });
          else expect(outcome.kind === "error" && (outcome.error as Error).message).toBe(want.slice("error:".length));
        }
      }),
      { numRuns: 200 },
    );
  });

  it("a message no stream relates to a request finds the one pending call's origin, whatever open listens and the window hold", async () => {
    const request = fc.record({
      listen: fc.boolean(),
      withOrigin: fc.boolean(),
      // Numbers in order, a far jump (the overflow) or a string id.
      id: fc.oneof(fc.constant<"next">("next"), fc.constant<"far">("far"), fc.constant<"string">("string")),
      settled: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(request, { maxLength: 12 }), async (requests) => {
        const table = new RequestTable({ cancelled: () => undefined });
        let next = 1;
        const live: Array<{ id: JsonRpcId; listen: boolean; origin: object | undefined }> = [];
        requests.forEach((r, i) => {
          const id: JsonRpcId = r.id === "string" ? `s${i}` : r.id === "far" ? ((next += 5_000), next++) : next++;
          const origin = r.withOrigin ? { name: `origin of ${String(id)}` } : undefined;
          table.add(id, r.listen ? "subscriptions/listen" : "tools/call", origin ? { origin } : undefined, 60_000).catch(() => undefined);
          if (r.settled) table.settle({ jsonrpc: "2.0", id, result: {} });
          else live.push({ id, listen: r.listen, origin });
        });
        const calls = live.filter((r) => !r.listen);
        expect(table.originFor(undefined)).toBe(calls.length === 1 ? calls[0].origin : undefined);
        for (const r of live) expect(table.originFor(r.id)).toBe(r.origin);
        table.rejectAll(new TransportError("done"));
        await flush();
      }),
    );
  });

  it("a straggler left behind by thousands of newer requests still gets its answer, and still times out", async () => {
    const { table, outcomes, add } = harness();
    add(0);
    add(1, { timeoutMs: 5_000 });
    for (let id = 2; id < 20_000; id++) {
      add(id);
      table.settle({ jsonrpc: "2.0", id, result: { id } });
    }
    expect(table.size).toBe(2);
    expect(table.settle({ jsonrpc: "2.0", id: 0, result: { id: 0 } })).toBe(true);
    await vi.advanceTimersByTimeAsync(5_001);
    expect(outcomes.get(0)).toEqual([{ kind: "result", value: { id: 0 } }]);
    const late = outcomes.get(1)!;
    expect(late).toHaveLength(1);
    expect(late[0].kind === "error" && late[0].error).toBeInstanceOf(RequestTimeoutError);
    expect((late[0] as { error: Error }).error.message).toMatch(/id 1\) got no response within 5000 ms \(timeoutMs\)/);
    expect(table.size).toBe(0);
    expect(table.timerArmed).toBe(false);
  });

  it("one signal shared by 10,000 requests: the answered ones are unaffected, the rest are cancelled once each", async () => {
    const { table, outcomes, cancelled, add } = harness();
    const controller = new AbortController();
    for (let id = 0; id < 10_000; id++) add(id, { signal: controller.signal });
    for (let id = 0; id < 10_000; id += 2) table.settle({ jsonrpc: "2.0", id, result: {} });
    controller.abort("user gave up");
    await flush();
    expect(table.size).toBe(0);
    expect(cancelled).toHaveLength(5_000);
    expect(new Set(cancelled.map((c) => c.id)).size).toBe(5_000);
    expect(cancelled.every((c) => typeof c.id === "number" && c.id % 2 === 1 && c.reason === "user gave up")).toBe(true);
    for (let id = 0; id < 10_000; id++) {
      const got = outcomes.get(id)!;
      expect(got).toHaveLength(1);
      if (id % 2 === 0) expect(got[0].kind).toBe("result");
      else expect(got[0].kind === "error" && got[0].error).toBeInstanceOf(RequestCancelledError);
    }
  });

  it("a request with another timeout than the connection's keeps it, and maxTotalTimeoutMs bounds progress resets", async () => {
    const { table, outcomes, add } = harness();
    add(0, { timeoutMs: 100 });
    add(1, { timeoutMs: 100, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 250, onProgress: () => {} });
    add(2);
    await vi.advanceTimersByTimeAsync(90);
    table.progress(1, { progress: 1 });
    await vi.advanceTimersByTimeAsync(20);
    expect(outcomes.get(0)![0]).toMatchObject({ kind: "error", error: { message: expect.stringMatching(/within 100 ms \(timeoutMs\)/) } });
    expect(outcomes.get(1)).toEqual([]);
    for (let i = 0; i < 3; i++) {
      table.progress(1, { progress: 2 + i });
      await vi.advanceTimersByTimeAsync(60);
    }
    expect(outcomes.get(1)![0]).toMatchObject({ kind: "error", error: { message: expect.stringMatching(/within 250 ms \(maxTotalTimeoutMs\)/) } });
    expect(table.size).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(outcomes.get(2)![0]).toMatchObject({ kind: "error", error: { message: expect.stringMatching(/within 60000 ms \(timeoutMs\)/) } });
    expect(table.timerArmed).toBe(false);
  });
});
