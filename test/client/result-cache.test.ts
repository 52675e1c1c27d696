/**
 * The cache's rules on their own: TTLs (2026 era), the listChanged rule (2025 era), invalidation,
 * in-flight sharing. The client-level tests (client-surface.test.ts) show the same through McpClient.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Era, Result } from "../../src/connection/eras/dialect.js";
import { MAX_CACHE_TTL_MS, ResultCache } from "../../src/client/result-cache.js";

function cacheFor(era: Era, capabilities: Record<string, unknown> = {}) {
  return new ResultCache({ era: () => era, serverCapabilities: () => capabilities });
}

/** A fetch that counts its calls and answers `result` (a fresh copy each time). */
function counting(result: Result) {
  const fetch = vi.fn(async () => ({ ...result }));
  return fetch;
}

const normal = { bypass: false, share: true };

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(1_000_000);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("ResultCache, 2026 era (results carry ttlMs)", () => {
  it("keeps a result while now < receivedAt + ttlMs, then asks again", async () => {
    const cache = cacheFor("modern");
    const fetch = counting({ tools: [], ttlMs: 5000, cacheScope: "public" });
    const key = ResultCache.pageKey("tools/list", undefined);
    await cache.get("tools/list", key, fetch, normal);
    vi.setSystemTime(1_004_999);
    await cache.get("tools/list", key, fetch, normal);
    expect(fetch).toHaveBeenCalledTimes(1);
    vi.setSystemTime(1_005_000);
    await cache.get("tools/list", key, fetch, normal);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it.each([[0], [-1], [undefined], ["60000"]])("does not keep a result with ttlMs %j", async (ttlMs) => {
    const cache = cacheFor("modern", { tools: { listChanged: true } });
    const fetch = counting(ttlMs === undefined ? { tools: [] } : { tools: [], ttlMs });
    const key = ResultCache.pageKey("tools/list", undefined);
    await cache.get("tools/list", key, fetch, normal);
    await cache.get("tools/list", key, fetch, normal);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(cache.size).toBe(0);
  });

  it("caps a TTL at 24 hours", async () => {
    const cache = cacheFor("modern");
    const fetch = counting({ tools: [], ttlMs: 365 * MAX_CACHE_TTL_MS });
    const key = ResultCache.pageKey("tools/list", undefined);
    await cache.get("tools/list", key, fetch, normal);
    vi.setSystemTime(1_000_000 + MAX_CACHE_TTL_MS - 1);
    await cache.get("tools/list", key, fetch, normal);
    expect(fetch).toHaveBeenCalledTimes(1);
    vi.setSystemTime(1_000_000 + MAX_CACHE_TTL_MS);
    await cache.get("tools/list", key, fetch, normal);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("never keeps an input_required result, whatever its TTL", async () => {
    const cache = cacheFor("modern");
    const fetch = counting({ resultType: "input_required", inputRequests: {}, ttlMs: 60_000 });
    await cache.get("tools/list", "tools/list", fetch, normal);
    await cache.get("tools/list", "tools/list", fetch, normal);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("keys pages by cursor; list_changed drops every page of that kind and no other kind", async () => {
    const cache = cacheFor("modern");
    const page1 = counting({ tools: [{ name: "a" }], nextCursor: "c1", ttlMs: 60_000 });
    const page2 = counting({ tools: [{ name: "b" }], ttlMs: 60_000 });
    const prompts = counting({ prompts: [], ttlMs: 60_000 });
    await cache.get("tools/list", ResultCache.pageKey("tools/list", undefined), page1, normal);
    await cache.get("tools/list", ResultCache.pageKey("tools/list", "c1"), page2, normal);
    await cache.get("prompts/list", ResultCache.pageKey("prompts/list", undefined), prompts, normal);
    expect(await cache.get("tools/list", ResultCache.pageKey("tools/list", "c1"), page2, normal)).toMatchObject({ tools: [{ name: "b" }] });
    expect(page2).toHaveBeenCalledTimes(1);
    cache.dropKind("tools");
    await cache.get("tools/list", ResultCache.pageKey("tools/list", undefined), page1, normal);
    await cache.get("tools/list", ResultCache.pageKey("tools/list", "c1"), page2, normal);
    await cache.get("prompts/list", ResultCache.pageKey("prompts/list", undefined), prompts, normal);
    expect([page1.mock.calls.length, page2.mock.calls.length, prompts.mock.calls.length]).toEqual([2, 2, 1]);
  });

  it("resources/updated drops the read of that uri only", async () => {
    const cache = cacheFor("modern");
    const a = counting({ contents: [{ uri: "file:///a", text: "A" }], ttlMs: 60_000 });
    const b = counting({ contents: [{ uri: "file:///b", text: "B" }], ttlMs: 60_000 });
    await cache.get("resources/read", ResultCache.readKey("file:///a"), a, normal);
    await cache.get("resources/read", ResultCache.readKey("file:///b"), b, normal);
    cache.dropRead("file:///a");
    await cache.get("resources/read", ResultCache.readKey("file:///a"), a, normal);
    await cache.get("resources/read", ResultCache.readKey("file:///b"), b, normal);
    expect([a.mock.calls.length, b.mock.calls.length]).toEqual([2, 1]);
  });
});

describe("ResultCache, 2025 era (no TTLs)", () => {
  it("keeps a list only while the server declared listChanged for its kind", async () => {
    const cache = cacheFor("legacy", { tools: { listChanged: true }, prompts: {} });
    const tools = counting({ tools: [] });
    const prompts = counting({ prompts: [] });
    for (let i = 0; i < 3; i++) {
      await cache.get("tools/list", "tools/list", tools, normal);
      await cache.get("prompts/list", "prompts/list", prompts, normal);
    }
    expect(tools).toHaveBeenCalledTimes(1);
    expect(prompts).toHaveBeenCalledTimes(3);
  });

  it("keeps the listChanged rule when a legacy result says ttlMs 0, and never keeps reads without a TTL", async () => {
    const cache = cacheFor("legacy", { tools: { listChanged: true }, resources: { listChanged: true } });
    const tools = counting({ tools: [], ttlMs: 0 });
    const read = counting({ contents: [] });
    for (let i = 0; i < 2; i++) {
      await cache.get("tools/list", "tools/list", tools, normal);
      await cache.get("resources/read", ResultCache.readKey("x:/1"), read, normal);
    }
    expect(tools).toHaveBeenCalledTimes(1);
    expect(read).toHaveBeenCalledTimes(2);
  });

  it("the 2026 era does not apply the listChanged rule", async () => {
    const cache = cacheFor("modern", { tools: { listChanged: true } });
    const tools = counting({ tools: [] });
    await cache.get("tools/list", "tools/list", tools, normal);
    await cache.get("tools/list", "tools/list", tools, normal);
    expect(tools).toHaveBeenCalledTimes(2);
  });
});

describe("ResultCache, in-flight requests", () => {
  it("identical concurrent calls share one request; a caller with its own signal does not", async () => {
    const cache = cacheFor("legacy", {});
    let release!: (result: Result) => void;
    const fetch = vi.fn(() => new Promise<Result>((resolve) => (release = resolve)));
    const first = cache.get("tools/list", "tools/list", fetch, normal);
    const second = cache.get("tools/list", "tools/list", fetch, normal);
    expect(fetch).toHaveBeenCalledTimes(1);
    const own = cache.get("tools/list", "tools/list", async () => ({ tools: [{ name: "own" }] }), { bypass: false, share: false });
    release({ tools: [{ name: "shared" }] });
    expect(await first).toBe(await second);
    expect(await own).toEqual({ tools: [{ name: "own" }] });
    // Settled: the next call asks again (the server declared no listChanged, so nothing is kept).
    await cache.get("tools/list", "tools/list", async () => ({ tools: [] }), normal);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it("a failed shared request fails every caller and is not remembered", async () => {
    const cache = cacheFor("legacy", { tools: { listChanged: true } });
    const failing = vi.fn(async () => {
      throw new Error("boom");
    });
    const calls = [cache.get("tools/list", "tools/list", failing, normal), cache.get("tools/list", "tools/list", failing, normal)];
    await expect(Promise.all(calls)).rejects.toThrow("boom");
    expect(failing).toHaveBeenCalledTimes(1);
    expect(await cache.get("tools/list", "tools/list", async () => ({ tools: [] }), normal)).toEqual({ tools: [] });
  });

  it("a result fetched across an invalidation is returned but not kept", async () => {
    const cache = cacheFor("legacy", { tools: { listChanged: true } });
    let release!: (result: Result) => void;
    const slow = () => new Promise<Result>((resolve) => (release = resolve));
    const pending = cache.get("tools/list", "tools/list", slow, normal);
    cache.dropKind("tools");
    release({ tools: [{ name: "old" }] });
    expect(await pending).toEqual({ tools: [{ name: "old" }] });
    expect(cache.size).toBe(0);
  });

  it("bypass asks the server even when a fresh entry exists, and refreshes the entry", async () => {
    const cache = cacheFor("legacy", { tools: { listChanged: true } });
    let n = 0;
    const fetch = async () => ({ tools: [], n: ++n });
    await cache.get("tools/list", "tools/list", fetch, normal);
    expect(await cache.get("tools/list", "tools/list", fetch, { bypass: true, share: true })).toMatchObject({ n: 2 });
    expect(await cache.get("tools/list", "tools/list", fetch, normal)).toMatchObject({ n: 2 });
  });
});
