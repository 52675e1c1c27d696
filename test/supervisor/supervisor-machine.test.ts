/**
 * The supervisor machine alone, with fake timers and fake children: one_for_one restarts, operator
 * commands reach the named child only, and STOP finishes once every child has stopped, leaving no timer.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createActor } from "xstate";
import { supervisorMachine } from "../../src/supervisor/supervisor-machine.js";
import { FakeChild } from "./fake-child.js";

const restart = { maxRestarts: 1, withinMs: 60_000, backoff: { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0 } };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function supervise(names: string[]) {
  const children = Object.fromEntries(names.map((name) => [name, new FakeChild()]));
  const events: string[] = [];
  const actor = createActor(supervisorMachine, {
    input: { children: names.map((name) => ({ name, work: children[name], restart, startTimeoutMs: 5000 })) },
  });
  actor.on("*", (event) => {
    const e = event;
    events.push(`${e.type.slice("child.".length)}:${e.name}`);
  });
  actor.start();
  return { actor, children, events };
}

describe("supervisor machine", () => {
  it("one_for_one: a child's crash restarts that child only; past its limit only it goes down", async () => {
    const { actor, children, events } = supervise(["a", "b"]);
    await vi.advanceTimersByTimeAsync(0);
    expect(events).toEqual(["up:a", "up:b"]);
    children.a.crash();
    await vi.advanceTimersByTimeAsync(100);
    expect(events.slice(2)).toEqual(["exit:a", "restart:a", "up:a"]);
    children.a.crash();
    expect(events.slice(5)).toEqual(["exit:a", "down:a"]);
    expect(children.a.startedAt).toHaveLength(2);
    expect(children.b.startedAt).toHaveLength(1);
    expect(children.b.stops).toBe(0);
    // RESTART reaches the named child only; an unknown name is ignored here (the Switchboard refuses it).
    actor.send({ type: "RESTART", name: "a" });
    actor.send({ type: "RESTART", name: "nobody" });
    await vi.advanceTimersByTimeAsync(0);
    expect(events.at(-1)).toBe("up:a");
    expect(children.b.startedAt).toHaveLength(1);
    actor.stop();
  });

  it("STOP stops every child, whatever its state, and completes once all have stopped; no timer is left", async () => {
    const { actor, children, events } = supervise(["up", "starting", "backoff"]);
    children.starting.plan = ["hang"];
    await vi.advanceTimersByTimeAsync(0);
    children.backoff.crash();
    const done = new Promise<void>((resolve) => actor.subscribe({ complete: resolve }));
    actor.send({ type: "STOP" });
    await vi.advanceTimersByTimeAsync(0);
    await done;
    expect(events.filter((e) => e.startsWith("stopped:")).sort()).toEqual(["stopped:backoff", "stopped:starting", "stopped:up"]);
    for (const child of Object.values(children)) {
      expect(child.stops).toBeGreaterThan(0);
      expect(child.watching).toBe(0);
    }
    expect(vi.getTimerCount()).toBe(0);
  });
});
