/** What a listing's pages say about sharing it: the shortest TTL, private when any page is. */
import { describe, expect, it } from "vitest";
import { withPage } from "../../src/client/list-facts.js";

describe("list facts", () => {
  it("keeps the shortest ttlMs and the scope every page agrees on", () => {
    let facts = withPage(undefined, { ttlMs: 5000, cacheScope: "public" });
    facts = withPage(facts, { ttlMs: 300, cacheScope: "public" });
    expect(facts).toEqual({ ttlMs: 300, cacheScope: "public" });
    expect(withPage(facts, { ttlMs: -1, cacheScope: "public" })).toEqual({ ttlMs: 0, cacheScope: "public" });
  });

  it("one private page makes the list private; a page that says nothing leaves the scope unknown", () => {
    const publicFirst = withPage(undefined, { ttlMs: 1000, cacheScope: "public" });
    expect(withPage(publicFirst, { cacheScope: "private" }).cacheScope).toBe("private");
    expect(withPage(withPage(undefined, { cacheScope: "private" }), { cacheScope: "public" }).cacheScope).toBe("private");
    expect(withPage(publicFirst, {})).toEqual({ ttlMs: 1000, cacheScope: undefined });
    expect(withPage(undefined, { tools: [] })).toEqual({ ttlMs: undefined, cacheScope: undefined });
  });
});
