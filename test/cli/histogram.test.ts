/** The bench command's latency histogram: 1-2-5 buckets that hold every call exactly once, and its text. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { histogram, renderHistogram, summariseLatency } from "../../src/cli/histogram.js";

const latencies = fc.array(fc.double({ min: 0, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 500 }).map((xs) => xs.sort((a, b) => a - b));

describe("latency histogram", () => {
  it("every latency lands in exactly one bucket: above the bound before, at most its own", () => {
    fc.assert(
      fc.property(latencies, (sorted) => {
        const buckets = histogram(sorted);
        expect(buckets.reduce((sum, b) => sum + b.count, 0)).toBe(sorted.length);
        let i = 0;
        buckets.forEach((bucket, b) => {
          for (let n = 0; n < bucket.count; n++, i++) {
            expect(sorted[i]).toBeLessThanOrEqual(bucket.leMs);
            if (b > 0) expect(sorted[i]).toBeGreaterThan(buckets[b - 1].leMs);
          }
        });
        // The first bucket is the one of the fastest call (no empty buckets before it), the last that of the slowest.
        expect(buckets[0].count).toBeGreaterThan(0);
        expect(buckets[buckets.length - 1].count).toBeGreaterThan(0);
      }),
    );
  });

  it("bounds run 1-2-5 per decade from 0.01 ms", () => {
    expect(histogram([0.001, 0.03, 0.3, 3, 30, 300, 3000]).map((b) => b.leMs)).toEqual([
      0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
    ]);
  });

  it("renders a bar per bucket, longest for the fullest, and the percentiles", () => {
    const sorted = [0.4, 0.4, 0.4, 0.4, 1.5, 30];
    const lines = renderHistogram(histogram(sorted), summariseLatency(sorted));
    expect(lines[0]).toBe("latency");
    expect(lines[1]).toMatch(/^ {2}≤ 0\.5 ms █{40} 4 \(66\.7%\)$/);
    expect(lines[2]).toMatch(/^ {4}≤ 1 ms {42}0 \(0\.0%\)$/);
    expect(lines[3]).toMatch(/^ {4}≤ 2 ms █{10} {31}1 \(16\.7%\)$/);
    expect(lines[lines.length - 1]).toBe("  p50 0.40 ms   p90 30.0 ms   p99 30.0 ms   max 30.0 ms");
    expect(summariseLatency(sorted).mean).toBeCloseTo(33.1 / 6, 9);
  });
});
