/**
 * The child machine alone, with fake timers, a fake child and an injected random source: the restart
 * delays it picks, when the backoff starts afresh, the intensity limit, failures no restart can fix,
 * the start timeout, and that stopping it in any state leaves no timer behind.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createActor } from "xstate";
import { ConfigError, TransportError } from "../../src/jsonrpc/errors.js";
import { childMachine, type ChildEmitted, type ChildRestartPolicy, type ChildSpec } from "../../src/supervisor/child-machine.js";
import { FakeChild } from "./fake-child.js";

const policy: ChildRestartPolicy = {
  maxRestarts: 100,
  withinMs: 600_000,
  backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 },
};

function run(work: FakeChild, overrides: Partial<ChildSpec> = {}) {
  const events: ChildEmitted[] = [];
  const actor = createActor(childMachine, { input: { name: "math", work, restart: policy, ...overrides } });
  actor.on("*", (event) => events.push(event));
  actor.start();
  const state = () => actor.getSnapshot().value;
  const stop = async () => {
    const done = new Promise<void>((resolve) => actor.subscribe({ complete: resolve }));
    actor.send({ type: "STOP" });
    await vi.advanceTimersByTimeAsync(0);
    await done;
  };
  return { actor, events, state, stop, types: () => events.map((e) => e.type) };
}

/** Lets promise callbacks run without moving the fake clock. */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("child machine", () => {
  it("starts, reports up, and on a crash restarts after the backoff delay", async () => {
    const work = new FakeChild();
    const { events, state, stop } = run(work);
    await settle();
    expect(state()).toBe("up");
    expect(events).toEqual([{ type: "child.up", name: "math", restarts: 0 }]);

    const error = new TransportError("exited with code 3");
    work.crash(error);
    expect(state()).toBe("backoff");
    expect(events.slice(1)).toEqual([
      { type: "child.exit", name: "math", error },
      { type: "child.restart", name: "math", attempt: 1, delayMs: 100, error },
    ]);
    await vi.advanceTimersByTimeAsync(99);
    expect(work.startedAt).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(work.startedAt).toHaveLength(2);
    expect(state()).toBe("up");
    expect(events.at(-1)).toEqual({ type: "child.up", name: "math", restarts: 1 });
    await stop();
  });

  it("a child that comes up and crashes at once is restarted after initialMs, x factor each time, capped at maxMs", async () => {
    const work = new FakeChild();
    const { events, stop } = run(work);
    await settle();
    for (let i = 0; i < 6; i++) {
      work.crash(); // as soon as it is up
      const restart = events.at(-1) as { type: string; delayMs: number };
      expect(restart.type).toBe("child.restart");
      await vi.advanceTimersByTimeAsync(restart.delayMs);
    }
    expect(work.delays()).toEqual([100, 200, 400, 800, 1000, 1000]);
    const announced = events.filter((e) => e.type === "child.restart").map((e) => (e as { delayMs: number }).delayMs);
    expect(announced).toEqual([100, 200, 400, 800, 1000, 1000]);
    await stop();
  });

  it("the backoff starts afresh only once the child stayed up for healthyAfterMs", async () => {
    const work = new FakeChild();
    const { stop } = run(work, { restart: { ...policy, healthyAfterMs: 5000 } });
    await settle();
    work.crash(); // restart 1: 100 ms
    await vi.advanceTimersByTimeAsync(100);
    work.crash(); // restart 2: 200 ms
    await vi.advanceTimersByTimeAsync(200);
    await vi.advanceTimersByTimeAsync(4999); // up, but 1 ms short of healthy
    work.crash(); // restart 3: still growing, 400 ms
    await vi.advanceTimersByTimeAsync(400);
    await vi.advanceTimersByTimeAsync(5000); // now healthy
    work.crash(); // restart 4: from the start again
    await vi.advanceTimersByTimeAsync(100);
    expect(work.startedAt).toHaveLength(5);
    const gaps = work.delays();
    expect(gaps).toEqual([100, 200, 4999 + 400, 5000 + 100]);
    await stop();
  });

  it("the jitter draws from the injected random source", async () => {
    const work = new FakeChild();
    const { events, stop } = run(work, { restart: { ...policy, backoff: { ...policy.backoff, jitter: 0.5 } }, random: () => 0.5 });
    await settle();
    work.crash();
    await vi.advanceTimersByTimeAsync(1000);
    work.crash();
    expect(events.filter((e) => e.type === "child.restart").map((e) => (e as { delayMs: number }).delayMs)).toEqual([75, 150]);
    await stop();
  });

  it("past the intensity limit it goes down with the reason, starts nothing more, and RESTART brings it back afresh", async () => {
    const work = new FakeChild();
    const { actor, events, state, stop, types } = run(work, { restart: { ...policy, maxRestarts: 2, withinMs: 10_000 } });
    await settle();
    work.crash();
    await vi.advanceTimersByTimeAsync(100);
    work.crash();
    await vi.advanceTimersByTimeAsync(200);
    const last = new TransportError("exited with code 9");
    work.crash(last);
    expect(state()).toBe("down");
    expect(events.at(-1)).toEqual({ type: "child.down", name: "math", reason: "restarted 2 times within 10000 ms (limit: 2)", error: last });
    expect(work.stops).toBeGreaterThan(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(work.startedAt).toHaveLength(3);
    expect(vi.getTimerCount()).toBe(0);

    // An operator's restart: a fresh window and a fresh backoff.
    actor.send({ type: "RESTART" });
    await settle();
    expect(state()).toBe("up");
    expect(actor.getSnapshot().context).toMatchObject({ history: [], backoff: { attempt: 0 }, downReason: undefined });
    work.crash();
    expect(events.at(-1)).toMatchObject({ type: "child.restart", delayMs: 100 });
    await stop();
    expect(types()).toContain("child.stopped");
  });

  it("a failure no restart can fix puts it down at once, with what to change, without using the restart budget", async () => {
    const work = new FakeChild();
    const missing = new TransportError('Cannot start MCP server "node-x": command not found (ENOENT).', {
      delivered: false,
      cause: Object.assign(new Error("spawn node-x ENOENT"), { code: "ENOENT", syscall: "spawn node-x", path: "node-x" }),
    });
    work.plan = [missing];
    const { actor, events, state, stop, types } = run(work);
    await settle();
    expect(state()).toBe("down");
    expect(types()).toEqual(["child.down"]);
    expect(events[0]).toMatchObject({ reason: 'command not found: node-x (ENOENT); check the "command" field, PATH and "cwd"', error: missing });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(work.startedAt).toHaveLength(1);
    expect(actor.getSnapshot().context.history).toEqual([]);

    // Fixed by the operator: RESTART starts it again.
    actor.send({ type: "RESTART" });
    await settle();
    expect(state()).toBe("up");
    expect(actor.getSnapshot().context.downReason).toBeUndefined();
    await stop();
  });

  it("a ConfigError at start (an unsupported pinned protocol) is permanent too; the cool-down retries it", async () => {
    const work = new FakeChild();
    work.plan = [new ConfigError('protocol "2027-01-01" is not a version this client speaks', { field: "protocol" })];
    const { state, events, stop } = run(work, { restart: { ...policy, cooldownMs: 30_000 } });
    await settle();
    expect(state()).toBe("down");
    expect((events[0] as { reason: string }).reason).toMatch(/^configuration error: .*2027-01-01.*; fix the server's entry$/);
    await vi.advanceTimersByTimeAsync(29_999);
    expect(work.startedAt).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(work.startedAt).toHaveLength(2);
    expect(state()).toBe("up");
    await stop();
  });

  it("a start that hangs is bounded by startTimeoutMs, then restarted like any failure", async () => {
    const work = new FakeChild();
    work.plan = ["hang"];
    const { state, events, stop } = run(work, { startTimeoutMs: 5000 });
    await vi.advanceTimersByTimeAsync(4999);
    expect(state()).toBe("starting");
    await vi.advanceTimersByTimeAsync(1);
    expect(state()).toBe("backoff");
    const restart = events.find((e) => e.type === "child.restart") as { error: Error };
    expect(restart.error).toBeInstanceOf(TransportError);
    expect(restart.error.message).toMatch(/server "math" did not finish starting within 5000 ms/);
    expect(work.stops).toBeGreaterThan(0); // the hung attempt is closed before the delay
    await vi.advanceTimersByTimeAsync(100);
    expect(state()).toBe("up");
    await stop();
  });

  it.each(["starting", "up", "backoff", "down", "down with cool-down"] as const)("STOP in %s stops the child and leaves no timer", async (where) => {
    const work = new FakeChild();
    const restart = { ...policy, maxRestarts: where.startsWith("down") ? 0 : 5, ...(where === "down with cool-down" ? { cooldownMs: 60_000 } : {}) };
    if (where === "starting") work.plan = ["hang"];
    const { state, stop, types } = run(work, { restart, startTimeoutMs: 30_000 });
    await settle();
    if (where !== "starting" && where !== "up") work.crash();
    expect(state()).toBe(where === "down with cool-down" ? "down" : where);
    // The start timeout, the healthy timer, the restart delay, the cool-down; a plain down child holds none.
    await settle();
    expect(vi.getTimerCount()).toBe(where === "down" ? 0 : 1);
    const stopsBefore = work.stops;
    await stop();
    expect(state()).toBe("stopped");
    expect(types().at(-1)).toBe("child.stopped");
    expect(work.stops).toBeGreaterThan(stopsBefore);
    expect(work.watching).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(work.startedAt).toHaveLength(1);
  });
});
