import { describe, expect, it } from "vitest";
import { RestartIntensity } from "../../src/supervisor/restart-intensity.js";

function clock(start = 1_000_000) {
  const c = { now: start, read: () => c.now };
  return c;
}

describe("RestartIntensity", () => {
  it("allows maxRestarts within the window and refuses the next, with the reason", () => {
    const c = clock();
    const intensity = new RestartIntensity({ maxRestarts: 3, withinMs: 1000 }, c.read);
    expect(intensity.tryRestart()).toEqual({ allowed: true, restartsInWindow: 1 });
    c.now += 100;
    expect(intensity.tryRestart()).toEqual({ allowed: true, restartsInWindow: 2 });
    c.now += 100;
    expect(intensity.tryRestart()).toEqual({ allowed: true, restartsInWindow: 3 });
    c.now += 100;
    expect(intensity.tryRestart()).toEqual({
      allowed: false,
      restartsInWindow: 3,
      reason: "restarted 3 times within 1000 ms (limit: 3)",
    });
    // A refused restart is not counted: it did not happen.
    expect(intensity.count).toBe(3);
  });

  it("slides: restarts older than withinMs stop counting", () => {
    const c = clock();
    const intensity = new RestartIntensity({ maxRestarts: 2, withinMs: 1000 }, c.read);
    intensity.tryRestart(); // t = 0
    c.now += 600;
    intensity.tryRestart(); // t = 600
    c.now += 399; // t = 999: both still inside
    expect(intensity.tryRestart().allowed).toBe(false);
    expect(intensity.retryAfterMs()).toBe(1);
    c.now += 1; // t = 1000: the first one has left the window
    expect(intensity.count).toBe(1);
    expect(intensity.retryAfterMs()).toBe(0);
    expect(intensity.tryRestart()).toEqual({ allowed: true, restartsInWindow: 2 });
    // Steady restarts slower than the limit (2 per 1000 ms) never trip it.
    for (let i = 0; i < 50; i++) {
      c.now += 600;
      expect(intensity.tryRestart().allowed).toBe(true);
    }
  });

  it("says 'once' for a limit of one", () => {
    const intensity = new RestartIntensity({ maxRestarts: 1, withinMs: 5000 }, () => 0);
    intensity.tryRestart();
    expect(intensity.tryRestart()).toMatchObject({ allowed: false, reason: "restarted once within 5000 ms (limit: 1)" });
  });

  it("maxRestarts 0 never restarts", () => {
    const intensity = new RestartIntensity({ maxRestarts: 0, withinMs: 5000 }, () => 0);
    expect(intensity.tryRestart()).toEqual({
      allowed: false,
      restartsInWindow: 0,
      reason: "restarts are disabled (restart.maxRestarts is 0)",
    });
    expect(intensity.retryAfterMs()).toBe(Infinity);
  });

  it("reset forgets the window", () => {
    const intensity = new RestartIntensity({ maxRestarts: 1, withinMs: 5000 }, () => 0);
    intensity.tryRestart();
    expect(intensity.tryRestart().allowed).toBe(false);
    intensity.reset();
    expect(intensity.count).toBe(0);
    expect(intensity.tryRestart().allowed).toBe(true);
  });

  it("rejects invalid limits", () => {
    expect(() => new RestartIntensity({ maxRestarts: -1, withinMs: 10 })).toThrow("maxRestarts must be an integer >= 0, got -1");
    expect(() => new RestartIntensity({ maxRestarts: 1.5, withinMs: 10 })).toThrow("maxRestarts must be an integer >= 0, got 1.5");
    expect(() => new RestartIntensity({ maxRestarts: 1, withinMs: 0 })).toThrow("withinMs must be a finite number > 0, got 0");
  });
});
