/** WordNet document expansion: a tool is found by a synonym of its own words that no query set chose. */
import { describe, expect, it } from "vitest";
import { ToolSearchIndex } from "../../src/catalog/search-index.js";
import { synonymText } from "../../src/catalog/synonyms.js";

const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object" as const, properties: {} } });

describe("WordNet synonyms in the tool search index", () => {
  it("gives each meaningful word its first-sense synonyms, the stemmed form when the word itself is not a lemma", () => {
    expect(synonymText("Rent a car").split(" ")).toEqual(expect.arrayContaining(["lease", "automobile", "auto"]));
    expect(synonymText("cars").split(" ")).toContain("automobile");
    expect(synonymText("the of and")).toBe("");
  });

  it("finds a tool by a word that only its synonyms hold, and ranks a literal match above it", () => {
    const index = new ToolSearchIndex();
    index.setServer("trip", [
      { name: "trip__rent_car", tool: tool("rent_car", "Rent a car for the day") },
      { name: "trip__book_flight", tool: tool("book_flight", "Book a seat on a flight") },
    ]);
    expect(index.search("lease an automobile").map((hit) => hit.name)).toEqual(["trip__rent_car"]);
    index.setServer("dealer", [{ name: "dealer__automobile_lease", tool: tool("automobile_lease", "Lease an automobile") }]);
    expect(index.search("lease an automobile", { cutoff: 0 }).map((hit) => hit.name)).toEqual(["dealer__automobile_lease", "trip__rent_car"]);
  });
});
