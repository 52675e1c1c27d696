/**
 * The tap's cost-saving parts keep its answers exact: pooled pendings never mix two calls up, the tap
 * hands the caller the board's own promise, the burst clock re-reads after every turn of the microtask
 * queue, and the stats' cached second follows the clock both ways.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { observe, Switchboard, type Observer } from "../../src/index.js";
import { burstNow } from "../../src/util/burst-clock.js";
import { CallStats } from "../../src/observe/stats.js";

let observer: Observer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await observer?.close();
  observer = undefined;
});

async function tapped(): Promise<{ board: Switchboard; tap: NonNullable<Switchboard["callTap"]> }> {
  const board = new Switchboard({ servers: { s: { command: process.execPath, args: ["-e", ""], disabled: true } } });
  observer = await observe(board, { port: 0 });
  return { board, tap: board.callTap! };
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe("the call tap", () => {
  it("gives the caller the board's own promise, and a rejection still reaches the caller", async () => {
    const { tap } = await tapped();
    const ok = Promise.resolve({ content: [] });
    expect(tap.called("s__a", undefined, ok)).toBe(ok);
    const failure = new Error("boom");
    await expect(tap.called("s__b", undefined, Promise.reject(failure))).rejects.toBe(failure);
    const calls = observer!.snapshot().calls;
    expect(calls.map((c) => [c.name, c.outcome, c.error])).toEqual([
      ["s__a", "ok", undefined],
      ["s__b", "failed", "boom"],
    ]);
  });

  it("keeps 200 overlapping calls apart, settled out of order: names, outcomes, counts", async () => {
    const { tap } = await tapped();
    const pending = Array.from({ length: 200 }, (_, i) => ({ i, call: deferred<{ content: []; isError?: boolean }>() }));
    const results = pending.map(({ i, call }) => tap.called(`s__t${i}`, { i }, call.promise).catch(() => undefined));
    // Settle in a scrambled order, one turn apart, so reused pendings serve later calls too.
    const order = pending.map((p) => p.i).sort((a, b) => ((a * 37) % 200) - ((b * 37) % 200));
    const outcome = (i: number) => (i % 3 === 0 ? "failed" : i % 3 === 1 ? "error" : "ok");
    for (const i of order) {
      const { call } = pending[i];
      if (outcome(i) === "failed") call.reject(new Error(`failed ${i}`));
      else call.resolve(outcome(i) === "error" ? { content: [], isError: true } : { content: [] });
      await Promise.resolve();
    }
    await Promise.all(results);
    const snapshot = observer!.snapshot();
    const last = order.slice(-50);
    expect(snapshot.calls.map((c) => c.name)).toEqual(last.map((i) => `s__t${i}`));
    expect(snapshot.calls.map((c) => c.outcome)).toEqual(last.map(outcome));
    expect(snapshot.calls.filter((c) => c.outcome === "failed").every((c) => c.error === `failed ${c.name.slice(4)}`)).toBe(true);
    // No arguments kept by default, even though each pending carried some while in flight.
    expect(snapshot.calls.every((c) => c.args === undefined)).toBe(true);
    const stats = snapshot.servers.find((s) => s.name === "s")!.stats;
    expect(stats.total).toBe(200);
    expect(stats.errors).toBe(order.filter((i) => outcome(i) !== "ok").length);
  });

  it("watch: records what the wrapped handlers return or throw, and hands it on", async () => {
    const { tap } = await tapped();
    const named = new Error("named by the runtime");
    const okThrows = tap.watch<{ content: [] }>(
      "s__a",
      undefined,
      () => {
        throw named;
      },
      (error) => {
        throw error;
      },
    );
    expect(() => okThrows.ok({ content: [] })).toThrow(named);
    // A handler that recovers from a failure: its value is what the caller gets, counted by its outcome.
    const recovers = tap.watch<{ content: []; isError?: boolean }>(
      "s__b",
      undefined,
      (result) => result,
      () => ({ content: [], isError: true }),
    );
    expect(recovers.failed(new Error("raw"))).toEqual({ content: [], isError: true });
    expect(observer!.snapshot().calls.map((c) => [c.name, c.outcome, c.error])).toEqual([
      ["s__a", "failed", "named by the runtime"],
      ["s__b", "error", undefined],
    ]);
  });

  it("times a call that waits for a timer in full", async () => {
    const { tap } = await tapped();
    await tap.called("s__slow", undefined, new Promise((resolve) => setTimeout(resolve, 30)));
    expect(observer!.snapshot().calls[0].ms).toBeGreaterThanOrEqual(25);
  });
});

describe("burstNow", () => {
  it("shares one clock read among at most 16 readings of a burst, and reads again two jobs on and after a timer", async () => {
    const now = vi.spyOn(performance, "now");
    await new Promise((resolve) => setTimeout(resolve, 0));
    now.mockClear();
    for (let i = 0; i < 16; i++) burstNow();
    expect(now).toHaveBeenCalledTimes(1);
    burstNow();
    expect(now).toHaveBeenCalledTimes(2);
    // The job a reaction's value queues (the caller's next call) still shares the reading...
    await Promise.resolve();
    burstNow();
    expect(now).toHaveBeenCalledTimes(2);
    // ...the one after it does not,
    await Promise.resolve();
    burstNow();
    expect(now).toHaveBeenCalledTimes(3);
    // and a wait for a timer never does.
    await new Promise((resolve) => setTimeout(resolve, 0));
    burstNow();
    expect(now).toHaveBeenCalledTimes(4);
  });
});

describe("CallStats' current second", () => {
  it("follows the clock forward and back: a late reading goes to its own second", () => {
    const stats = new CallStats();
    const base = 3_000_000_000;
    stats.record(base + 999, 1, false);
    stats.record(base + 1000, 1, false);
    stats.record(base + 500, 1, true);
    stats.record(base + 1999, 1, false);
    const series = stats.series(base + 2000);
    expect(series.rate.slice(-2)).toEqual([2, 2]);
    expect(series.errors).toBe(1);
  });
});
