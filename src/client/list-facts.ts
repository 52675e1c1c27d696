/**
 * What a listing's pages say about keeping it (SEP-2549, 2026 era): the shortest `ttlMs` of its pages
 * and its `cacheScope`, private when any page is private (one private page makes the whole list one
 * user's). A cache shared beyond one client (the fleet's, in Redis) reads these to decide whether and
 * how long the list may be served to others; the 2025 era's results carry neither.
 */
import type { Result } from "../connection/eras/dialect.js";

export interface ListFacts {
  /** The shortest positive `ttlMs` of the pages; 0 when a page said 0 (or less); undefined when none gave one. */
  ttlMs: number | undefined;
  /** `private` when any page said so; `public` when every page said public; else undefined (the 2026 era reads that as private). */
  cacheScope: "public" | "private" | undefined;
}

/** The facts so far, with one more page. */
export function withPage(facts: ListFacts | undefined, page: Result): ListFacts {
  const ttl = typeof page.ttlMs === "number" ? Math.max(0, page.ttlMs) : undefined;
  const scope = page.cacheScope === "private" || page.cacheScope === "public" ? page.cacheScope : undefined;
  if (facts === undefined) return { ttlMs: ttl, cacheScope: scope };
  return {
    ttlMs: ttl === undefined ? facts.ttlMs : facts.ttlMs === undefined ? ttl : Math.min(ttl, facts.ttlMs),
    cacheScope: facts.cacheScope === "private" || scope === "private" ? "private" : scope === facts.cacheScope ? scope : undefined,
  };
}
