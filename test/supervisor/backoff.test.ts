import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assertBackoffPolicy, Backoff, backoffBase, backoffDelay, FRESH_BACKOFF, nextBackoff, type BackoffPolicy } from "../../src/supervisor/backoff.js";

const policy: BackoffPolicy = { initialMs: 100, maxMs: 10_000, factor: 2, jitter: 0 };

const policies = fc
  .record({
    initialMs: fc.integer({ min: 0, max: 100_000 }),
    extra: fc.integer({ min: 0, max: 1_000_000 }),
    factor: fc.double({ min: 1, max: 10, noNaN: true }),
    jitter: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ initialMs, extra, factor, jitter }): BackoffPolicy => ({ initialMs, maxMs: initialMs + extra, factor, jitter }));

describe("backoffDelay", () => {
  it("grows by the factor and stops at maxMs without jitter", () => {
    const delays = [0, 1, 2, 3, 6, 7, 8, 1000].map((attempt) => backoffDelay(attempt, policy, () => 0.5));
    expect(delays).toEqual([100, 200, 400, 800, 6400, 10_000, 10_000, 10_000]);
  });

  it("with jitter, only shortens: from base * (1 - jitter) to base", () => {
    const jittery = { ...policy, jitter: 0.5 };
    expect(backoffDelay(2, jittery, () => 0)).toBe(400);
    expect(backoffDelay(2, jittery, () => 0.5)).toBe(300);
    expect(backoffDelay(2, jittery, () => 0.999999)).toBeCloseTo(200, 3);
  });

  it("full jitter (1) can go down to 0", () => {
    expect(backoffDelay(3, { ...policy, jitter: 1 }, () => 0.999999999)).toBeLessThan(0.001);
  });

  it("an initialMs of 0 gives 0 forever, never NaN", () => {
    expect(backoffDelay(5000, { initialMs: 0, maxMs: 10, factor: 3, jitter: 0.2 }, () => 0.3)).toBe(0);
  });

  it("property: every delay lies in [base * (1 - jitter), base] and never exceeds maxMs", () => {
    fc.assert(
      fc.property(policies, fc.integer({ min: 0, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), (p, attempt, r) => {
        const delay = backoffDelay(attempt, p, () => r);
        const base = backoffBase(attempt, p);
        expect(Number.isFinite(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(p.maxMs);
        expect(delay).toBeLessThanOrEqual(base);
        expect(delay).toBeGreaterThanOrEqual(base * (1 - p.jitter) - 1e-9);
      }),
    );
  });

  it("property: the base never shrinks from one attempt to the next", () => {
    fc.assert(
      fc.property(policies, fc.integer({ min: 0, max: 5000 }), (p, attempt) => {
        expect(backoffBase(attempt + 1, p)).toBeGreaterThanOrEqual(backoffBase(attempt, p));
      }),
    );
  });

  it("property: a random source out of [0, 1) cannot push the delay out of bounds", () => {
    fc.assert(
      fc.property(policies, fc.integer({ min: 0, max: 60 }), fc.double({ noNaN: true }), (p, attempt, r) => {
        const delay = backoffDelay(attempt, p, () => r);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(backoffBase(attempt, p));
      }),
    );
  });
});

describe("nextBackoff", () => {
  it("hands out growing delays as plain data, never touching the state it was given", () => {
    const first = nextBackoff(FRESH_BACKOFF, policy, () => 0);
    const second = nextBackoff(first.state, policy, () => 0);
    const third = nextBackoff(second.state, policy, () => 0);
    expect([first.delayMs, second.delayMs, third.delayMs]).toEqual([100, 200, 400]);
    expect(third.state).toEqual({ attempt: 3 });
    expect(FRESH_BACKOFF).toEqual({ attempt: 0 });
    expect(Object.isFrozen(FRESH_BACKOFF)).toBe(true);
    // Resetting is going back to the fresh state.
    expect(nextBackoff(FRESH_BACKOFF, policy, () => 0).delayMs).toBe(100);
  });

  it.each([
    [{ ...policy, initialMs: -1 }, "backoff initialMs must be a finite number >= 0, got -1"],
    [{ ...policy, maxMs: 50 }, "backoff maxMs must be a finite number >= initialMs (100), got 50"],
    [{ ...policy, factor: 0.5 }, "backoff factor must be a finite number >= 1, got 0.5"],
    [{ ...policy, jitter: 1.5 }, "backoff jitter must be between 0 and 1, got 1.5"],
    [{ ...policy, jitter: Number.NaN }, "backoff jitter must be between 0 and 1, got NaN"],
  ])("rejects an invalid policy %o", (bad, message) => {
    expect(() => assertBackoffPolicy(bad)).toThrow(new RangeError(message));
    expect(() => new Backoff(bad)).toThrow(RangeError);
  });
});

describe("Backoff (a mutable wrapper over the same functions)", () => {
  it("counts attempts and resets", () => {
    const backoff = new Backoff(policy, () => 0);
    expect([backoff.next(), backoff.next(), backoff.next()]).toEqual([100, 200, 400]);
    expect(backoff.attempt).toBe(3);
    backoff.reset();
    expect(backoff.attempt).toBe(0);
    expect(backoff.next()).toBe(100);
  });
});
