/** The per-second call stats behind the sparklines: rates, percentiles within a bucket's width, the window. */
import { describe, expect, it } from "vitest";
import { CallStats, WINDOW_SECONDS } from "../../src/observe/stats.js";
import { Redactor, secretArgsOf } from "../../src/observe/view.js";

describe("CallStats", () => {
  it("counts each second's calls and errors, and reads p50/p99 within 5% of the true values", () => {
    const stats = new CallStats();
    const base = 1_000_000_000;
    // Second 0: 100 calls of 1..100 ms; second 1: none; second 2: 10 calls of 5 ms, 3 failed.
    for (let i = 1; i <= 100; i++) stats.record(base + i, i, false);
    for (let i = 0; i < 10; i++) stats.record(base + 2000 + i, 5, i < 3);
    const series = stats.series(base + 3000);
    expect(series.rate).toHaveLength(WINDOW_SECONDS);
    expect(series.rate.slice(-3)).toEqual([100, 0, 10]);
    expect(series.p50[57]!).toBeGreaterThan(50 * 0.95);
    expect(series.p50[57]!).toBeLessThan(50 * 1.05);
    expect(series.p99[57]!).toBeGreaterThan(99 * 0.95);
    expect(series.p99[57]!).toBeLessThan(99 * 1.05);
    expect(series.p50[58]).toBeNull();
    expect(series.p50[59]!).toBeCloseTo(5, 0);
    expect(series.total).toBe(110);
    expect(series.errors).toBe(3);
  });

  it("forgets a second once the window has moved past it, and leaves out the current second", () => {
    const stats = new CallStats();
    const base = 2_000_000_000;
    stats.record(base, 1, false);
    expect(stats.series(base).rate.every((n) => n === 0)).toBe(true);
    expect(stats.series(base + 1000).rate[59]).toBe(1);
    expect(stats.series(base + 60_000).rate[0]).toBe(1);
    expect(stats.series(base + 61_000).rate.every((n) => n === 0)).toBe(true);
    // The slot is reused for a later second: the old counts do not leak into it.
    stats.record(base + 61_000, 2, false);
    expect(stats.series(base + 62_000).rate[59]).toBe(1);
    expect(stats.series(base + 62_000).p50[59]!).toBeCloseTo(2, 0);
  });

  it("files any duration from 0.1 ms to an hour in its log-spaced bucket: a lone call's p50 within 5%", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) - 1) / 2147483646;
    for (let i = 0; i < 5000; i++) {
      const ms = 0.1 * 2 ** (random() * 25);
      const stats = new CallStats();
      stats.record(1000 * i, ms, false);
      const p50 = stats.series(1000 * i + 1000).p50[59]!;
      expect(Math.abs(p50 - ms) / ms, `${ms} ms read as ${p50}`).toBeLessThan(0.05);
    }
  });

  it("sub-microsecond and hour-long calls land in the end buckets", () => {
    const stats = new CallStats();
    stats.record(0, 0, false);
    stats.record(1, 3_600_000 * 10, false);
    const series = stats.series(1000);
    expect(series.rate[59]).toBe(2);
    expect(series.p50[59]!).toBeLessThan(0.01);
    expect(series.p99[59]!).toBeGreaterThan(1_000_000);
  });
});

describe("redaction", () => {
  it("replaces each secret and its JSON-escaped form, and leaves short strings alone", () => {
    const redactor = new Redactor(['pa"ss\\word-1', "abc", "token-xyz-123"]);
    const payload = JSON.stringify({ a: 'my pa"ss\\word-1 here', b: "token-xyz-123 and abc" });
    const out = redactor.apply(payload);
    expect(out).not.toContain("token-xyz-123");
    expect(JSON.parse(out)).toEqual({ a: "my [redacted] here", b: "[redacted] and abc" });
  });

  it("finds the secrets of a command line by their names", () => {
    expect(secretArgsOf(["server.js", "--api-key", "k-123456", "--token=t-654321", "API_KEY=e-111111", "--port", "8080", "--verbose"])).toEqual([
      "k-123456",
      "t-654321",
      "e-111111",
    ]);
  });
});
