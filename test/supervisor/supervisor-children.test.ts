/**
 * The supervisor's children live in one host actor (supervisor-machine.ts), with their timers in the
 * actors of the states they bound (child-machine.ts): thousands of children start and stop with no
 * timer left, a supervisor stopped without STOP still stops its children's work, and a child that
 * cannot run fails the supervisor.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createActor } from "xstate";
import type { ChildEmitted } from "../../src/supervisor/child-machine.js";
import { childMachine } from "../../src/supervisor/child-machine.js";
import { supervisorMachine } from "../../src/supervisor/supervisor-machine.js";
import { FakeChild } from "./fake-child.js";

const restart = { maxRestarts: 3, withinMs: 60_000, backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 }, cooldownMs: 30_000 };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function supervise(count: number) {
  const children = Array.from({ length: count }, () => new FakeChild());
  const events: ChildEmitted[] = [];
  const actor = createActor(supervisorMachine, {
    input: { children: children.map((work, i) => ({ name: `s${i}`, work, restart, startTimeoutMs: 5000 })) },
  });
  actor.on("*", (event) => events.push(event));
  actor.start();
  return { actor, children, events };
}

describe("supervisor children", () => {
  it("2,000 children come up, and STOP stops each once and completes with no timer left", async () => {
    const { actor, children, events } = supervise(2000);
    await vi.advanceTimersByTimeAsync(0);
    expect(events.filter((e) => e.type === "child.up")).toHaveLength(2000);
    // One healthy-after timer per child that is up, and nothing else.
    expect(vi.getTimerCount()).toBe(2000);
    children[7].crash();
    const done = new Promise<void>((resolve) => actor.subscribe({ complete: resolve }));
    actor.send({ type: "STOP" });
    await vi.advanceTimersByTimeAsync(0);
    await done;
    expect(events.filter((e) => e.type === "child.stopped")).toHaveLength(2000);
    expect(children.every((c) => c.stops >= 1 && c.watching === 0)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a supervisor stopped without STOP still stops its children's work, whatever their state, and leaves no timer", async () => {
    const { actor, children } = supervise(3);
    children[1].plan = ["hang"];
    await vi.advanceTimersByTimeAsync(0);
    children[2].crash(); // in its restart backoff
    const stopsBefore = children.map((c) => c.stops);
    actor.stop();
    await vi.advanceTimersByTimeAsync(0);
    children.forEach((c, i) => expect(c.stops).toBeGreaterThan(stopsBefore[i]));
    expect(children.every((c) => c.watching === 0)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(children.map((c) => c.startedAt.length)).toEqual([1, 1, 1]);
  });

  // Not `up`: its watch and healthy timer are released by exit actions, which XState skips for an actor
  // stopped from outside; the supervisor stops its children with STOP (the test above).
  it("a child machine stopped from outside while starting, in backoff or down clears its timers", async () => {
    for (const where of ["starting", "backoff", "down"] as const) {
      const work = new FakeChild();
      if (where === "starting") work.plan = ["hang"];
      const actor = createActor(childMachine, {
        input: { name: "x", work, restart: { ...restart, maxRestarts: where === "down" ? 0 : 3 }, startTimeoutMs: 5000 },
      });
      actor.start();
      await vi.advanceTimersByTimeAsync(0);
      if (where === "backoff" || where === "down") work.crash();
      expect(actor.getSnapshot().value).toBe(where);
      expect(vi.getTimerCount()).toBe(1);
      actor.stop();
      expect(vi.getTimerCount()).toBe(0);
    }
  });

  it("a child that cannot run (an invalid policy) fails the supervisor", async () => {
    const actor = createActor(supervisorMachine, {
      input: { children: [{ name: "bad", work: new FakeChild(), restart: { ...restart, maxRestarts: -1 } }] },
    });
    const failure = new Promise<unknown>((resolve) => actor.subscribe({ error: resolve }));
    actor.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(await failure).toBeInstanceOf(RangeError);
    expect(actor.getSnapshot().status).toBe("error");
  });
});
