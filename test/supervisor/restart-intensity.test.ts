import { describe, expect, it } from "vitest";
import {
  assertRestartIntensityLimit,
  RestartIntensity,
  restartRetryAfterMs,
  restartsInWindow,
  tryRestart,
  type RestartHistory,
  type RestartIntensityLimit,
} from "../../src/supervisor/restart-intensity.js";

const T0 = 1_000_000;

/** Asks for restarts at the given times, threading the history through as the child machine does. */
function restartsAt(limit: RestartIntensityLimit, times: number[]): { allowed: boolean[]; history: RestartHistory } {
  let history: RestartHistory = [];
  const allowed = times.map((t) => {
    const verdict = tryRestart(history, limit, t);
    history = verdict.history;
    return verdict.allowed;
  });
  return { allowed, history };
}

describe("restart intensity", () => {
  it("allows maxRestarts within the window and refuses the next, with the reason", () => {
    const limit = { maxRestarts: 3, withinMs: 1000 };
    const { allowed, history } = restartsAt(limit, [T0, T0 + 100, T0 + 200]);
    expect(allowed).toEqual([true, true, true]);
    expect(history).toEqual([T0, T0 + 100, T0 + 200]);
    const refused = tryRestart(history, limit, T0 + 300);
    expect(refused).toEqual({ allowed: false, history, reason: "restarted 3 times within 1000 ms (limit: 3)" });
    // A refused restart is not counted: it did not happen.
    expect(restartsInWindow(refused.history, limit, T0 + 300)).toHaveLength(3);
  });

  it("never mutates the history it was given", () => {
    const limit = { maxRestarts: 2, withinMs: 1000 };
    const history = Object.freeze([T0]);
    const verdict = tryRestart(history, limit, T0 + 5000);
    expect(verdict).toEqual({ allowed: true, history: [T0 + 5000] });
    expect(history).toEqual([T0]);
  });

  it("slides: restarts older than withinMs stop counting", () => {
    const limit = { maxRestarts: 2, withinMs: 1000 };
    let { history } = restartsAt(limit, [T0, T0 + 600]);
    expect(tryRestart(history, limit, T0 + 999).allowed).toBe(false); // both still inside
    expect(restartRetryAfterMs(history, limit, T0 + 999)).toBe(1);
    expect(restartsInWindow(history, limit, T0 + 1000)).toEqual([T0 + 600]); // the first has left
    expect(restartRetryAfterMs(history, limit, T0 + 1000)).toBe(0);
    const verdict = tryRestart(history, limit, T0 + 1000);
    expect(verdict).toEqual({ allowed: true, history: [T0 + 600, T0 + 1000] });
    history = verdict.history;
    // Steady restarts slower than the limit (2 per 1000 ms) never trip it.
    for (let i = 1; i <= 50; i++) {
      const next = tryRestart(history, limit, T0 + 1000 + i * 600);
      expect(next.allowed).toBe(true);
      history = next.history;
    }
    expect(history.length).toBeLessThanOrEqual(2);
  });

  it("says 'once' for a limit of one", () => {
    const limit = { maxRestarts: 1, withinMs: 5000 };
    const { history } = restartsAt(limit, [0]);
    expect(tryRestart(history, limit, 0)).toMatchObject({ allowed: false, reason: "restarted once within 5000 ms (limit: 1)" });
  });

  it("maxRestarts 0 never restarts", () => {
    const limit = { maxRestarts: 0, withinMs: 5000 };
    expect(tryRestart([], limit, 0)).toEqual({ allowed: false, history: [], reason: "restarts are disabled (restart.maxRestarts is 0)" });
    expect(restartRetryAfterMs([], limit, 0)).toBe(Infinity);
  });

  it("rejects invalid limits", () => {
    expect(() => assertRestartIntensityLimit({ maxRestarts: -1, withinMs: 10 })).toThrow("maxRestarts must be an integer >= 0, got -1");
    expect(() => assertRestartIntensityLimit({ maxRestarts: 1.5, withinMs: 10 })).toThrow("maxRestarts must be an integer >= 0, got 1.5");
    expect(() => assertRestartIntensityLimit({ maxRestarts: 1, withinMs: 0 })).toThrow("withinMs must be a finite number > 0, got 0");
  });
});

describe("RestartIntensity (a mutable wrapper over the same functions)", () => {
  it("allows maxRestarts within the window, refuses the next with the reason, slides and resets", () => {
    const clock = { now: T0 };
    const intensity = new RestartIntensity({ maxRestarts: 2, withinMs: 1000 }, () => clock.now);
    expect(intensity.tryRestart()).toEqual({ allowed: true, restartsInWindow: 1 });
    clock.now += 600;
    expect(intensity.tryRestart()).toEqual({ allowed: true, restartsInWindow: 2 });
    clock.now += 399;
    expect(intensity.tryRestart()).toEqual({ allowed: false, restartsInWindow: 2, reason: "restarted 2 times within 1000 ms (limit: 2)" });
    expect(intensity.retryAfterMs()).toBe(1);
    clock.now += 1;
    expect(intensity.count).toBe(1);
    intensity.reset();
    expect(intensity.count).toBe(0);
    expect(() => new RestartIntensity({ maxRestarts: -1, withinMs: 10 })).toThrow("maxRestarts must be an integer >= 0, got -1");
  });
});
