/**
 * checklist 12 and 29: the era verdict is remembered per server; a 2026 verdict's facts (the
 * DiscoverResult) only while its ttlMs says they are fresh.
 */
import { describe, expect, it } from "vitest";
import { cachedVerdict, forgetVerdict, rememberVerdict } from "../../src/connection/eras/verdict-cache.js";

const discover = (ttlMs?: number) => ({ supportedVersions: ["2026-07-28"], capabilities: {}, ...(ttlMs === undefined ? {} : { ttlMs }) });

describe("verdict cache", () => {
  it("checklist 29: reuses a DiscoverResult only while its ttlMs lasts (0, absent or negative: never; capped at 24 h)", () => {
    rememberVerdict("a", { kind: "modern", discover: discover(60_000) }, 1_000);
    expect(cachedVerdict("a", 1_000 + 59_999)?.kind).toBe("modern");
    expect(cachedVerdict("a", 1_000 + 60_000)).toBeUndefined();
    for (const ttl of [0, -5, undefined]) {
      rememberVerdict("b", { kind: "modern", discover: discover(ttl) }, 1_000);
      expect(cachedVerdict("b", 1_000)).toBeUndefined();
    }
    rememberVerdict("c", { kind: "modern", discover: discover(Number.MAX_SAFE_INTEGER) }, 0);
    expect(cachedVerdict("c", 24 * 3600_000 - 1)?.kind).toBe("modern");
    expect(cachedVerdict("c", 24 * 3600_000)).toBeUndefined();
    ["a", "b", "c"].forEach(forgetVerdict);
  });

  it("checklist 12: a 2025 verdict is an era only, kept until forgotten", () => {
    rememberVerdict("old", { kind: "legacy" }, 0);
    expect(cachedVerdict("old", Number.MAX_SAFE_INTEGER)).toEqual({ kind: "legacy" });
    forgetVerdict("old");
    expect(cachedVerdict("old")).toBeUndefined();
  });

  it("remembers at most 1,000 servers, forgetting the oldest first", () => {
    for (let i = 0; i < 1001; i++) rememberVerdict(`s${i}`, { kind: "legacy" });
    expect(cachedVerdict("s0")).toBeUndefined();
    expect(cachedVerdict("s1")).toEqual({ kind: "legacy" });
    expect(cachedVerdict("s1000")).toEqual({ kind: "legacy" });
    for (let i = 0; i < 1001; i++) forgetVerdict(`s${i}`);
  });
});
