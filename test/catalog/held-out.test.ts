/** Tool search on the held-out queries (test/catalog/held-out-queries.ts), which the ranking was never tuned on. */
import { describe, expect, it } from "vitest";
import { HELD_OUT_QUERIES } from "./held-out-queries.js";
import { QUERIES, catalogServers } from "./queries.js";

describe("held-out tool search queries", () => {
  it("has at least 100 queries, none also in the tuning half, each expecting tools that exist", () => {
    const names = new Set(Object.entries(catalogServers()).flatMap(([server, tools]) => tools.map((tool) => `${server}__${tool.name}`)));
    const tuning = new Set(QUERIES.map(({ query }) => query.toLowerCase()));
    expect(HELD_OUT_QUERIES.length).toBeGreaterThanOrEqual(100);
    for (const { query, expected } of HELD_OUT_QUERIES) {
      expect(tuning, query).not.toContain(query.toLowerCase());
      for (const name of expected) expect(names, name).toContain(name);
    }
  });
});
