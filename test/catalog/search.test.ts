/** Tool search over the query set (test/catalog/queries.ts): the recall bar, term processing, index upkeep. */
import { describe, expect, it } from "vitest";
import { ToolSearchIndex } from "../../src/catalog/search-index.js";
import { splitWords, stem, termOf } from "../../src/catalog/terms.js";
import { QUERIES, catalogServers } from "./queries.js";

function catalogIndex(): ToolSearchIndex {
  const index = new ToolSearchIndex();
  for (const [server, tools] of Object.entries(catalogServers()))
    index.setServer(
      server,
      tools.map((tool) => ({ name: `${server}__${tool.name}`, tool })),
    );
  return index;
}

describe("tool search", () => {
  it("has at least 60 queries over at least 250 tools, each expecting tools that exist", () => {
    const names = new Set(Object.entries(catalogServers()).flatMap(([server, tools]) => tools.map((tool) => `${server}__${tool.name}`)));
    expect(QUERIES.length).toBeGreaterThanOrEqual(60);
    expect(names.size).toBeGreaterThanOrEqual(250);
    for (const { expected } of QUERIES) for (const name of expected) expect(names, name).toContain(name);
  });

  it("finds the right tool in the top 5 for at least 90% of the queries", () => {
    const index = catalogIndex();
    const missed = QUERIES.filter(({ query, expected }) => !index.search(query, { limit: 5 }).some((hit) => expected.includes(hit.name)));
    const recall = 1 - missed.length / QUERIES.length;
    expect(recall, `missed: ${missed.map((m) => m.query).join(" | ")}`).toBeGreaterThanOrEqual(0.9);
  });

  it("ranks best first with scores, respects the limit and names the server", () => {
    const hits = catalogIndex().search("refund a card payment", { limit: 3 });
    expect(hits).toHaveLength(3);
    expect(hits[0]).toMatchObject({ name: "acme__payment_refund", server: "acme" });
    expect(hits[0].description).toMatch(/Refund/);
    expect(hits[0].score).toBeGreaterThanOrEqual(hits[1].score);
    expect(hits[1].score).toBeGreaterThanOrEqual(hits[2].score);
  });

  it("an empty query or stop words only find nothing", () => {
    const index = catalogIndex();
    expect(index.search("")).toEqual([]);
    expect(index.search("   ")).toEqual([]);
    expect(index.search("the of a")).toEqual([]);
  });

  it("replacing or removing a server's tools changes what is found", () => {
    const index = new ToolSearchIndex();
    index.setServer("a", [{ name: "a__launch_rocket", tool: { name: "launch_rocket", inputSchema: { type: "object" } } }]);
    expect(index.search("rocket").map((hit) => hit.name)).toEqual(["a__launch_rocket"]);
    index.setServer("a", [{ name: "a__bake_bread", tool: { name: "bake_bread", description: "Bakes a loaf", inputSchema: { type: "object" } } }]);
    expect(index.search("rocket")).toEqual([]);
    expect(index.search("loaf").map((hit) => hit.name)).toEqual(["a__bake_bread"]);
    expect(index.size).toBe(1);
    index.removeServer("a");
    expect(index.search("loaf")).toEqual([]);
    expect(index.size).toBe(0);
  });

  it("indexes parameter names and descriptions, titles and server instructions", () => {
    const index = new ToolSearchIndex();
    const tool = {
      name: "run",
      title: "Quarterly forecast",
      inputSchema: { type: "object" as const, properties: { horizon: { type: "string", description: "Months ahead" } } },
    };
    index.setServer("plan", [{ name: "plan__run", tool }], "Budget planning for finance teams");
    for (const query of ["forecast", "horizon", "months", "budget"])
      expect(
        index.search(query).map((hit) => hit.name),
        query,
      ).toEqual(["plan__run"]);
  });

  it("splits names on _ - . and camelCase, stems, and folds paraphrases onto one term", () => {
    expect(splitWords("get_fileInfo.v2-HTTPServer")).toEqual(["get", "file", "Info", "v2", "HTTP", "Server"]);
    expect(stem("files")).toBe("file");
    expect(stem("directories")).toBe("directory");
    expect(stem("running")).toBe("run");
    expect(stem("matches")).toBe("match");
    expect(termOf("Remove")).toBe(termOf("delete"));
    expect(termOf("folders")).toBe(termOf("directory"));
    expect(termOf("the")).toBeNull();
  });
});
