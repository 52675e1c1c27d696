/**
 * What a search says beyond its hits: the relevance cut-off, the servers it could not see (and the
 * `search_tools` text the model reads), and the optional `embed` hook's hybrid ranking.
 */
import { describe, expect, it } from "vitest";
import { searchResultText } from "../../src/agents/deferred-tools.js";
import { ToolSearchIndex } from "../../src/catalog/search-index.js";
import { ConfigError } from "../../src/jsonrpc/errors.js";
import { Switchboard } from "../../src/switchboard/switchboard.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { boardsAfterEach } from "../switchboard/board-helpers.js";

const board = boardsAfterEach();
const tool = (name: string, description: string) => ({ name, description, inputSchema: { type: "object" as const, properties: {} } });

function scripted(tools: ReturnType<typeof tool>[]) {
  return { transport: () => new ScriptedServer().on("tools/list", () => ({ tools })).clientSide, protocol: "legacy" as const };
}

describe("relevance cut-off", () => {
  const index = new ToolSearchIndex();
  index.setServer("w", [
    { name: "w__get_forecast", tool: tool("get_forecast", "Weather forecast: rain, wind and temperature for the next days") },
    { name: "w__city_time", tool: tool("city_time", "Local time in a city") },
    { name: "w__list_stations", tool: tool("list_stations", "Stations near a city") },
  ]);

  it("drops hits far below the best one, keeps them with cutoff 0", () => {
    const all = index.search("rain and wind forecast for my city", { cutoff: 0 });
    expect(all.map((hit) => hit.name)).toEqual(expect.arrayContaining(["w__get_forecast", "w__city_time", "w__list_stations"]));
    expect(all[1].score).toBeLessThan(all[0].score * 0.25);
    expect(index.search("rain and wind forecast for my city").map((hit) => hit.name)).toEqual(["w__get_forecast"]);
  });

  it("keeps hits that score close to the best one", () => {
    expect(index.search("local time, or the stations near a city").map((hit) => hit.name)).toEqual(
      expect.arrayContaining(["w__city_time", "w__list_stations"]),
    );
  });
});

describe("servers a search could not see", () => {
  it("lists a down server with its reason, beside the hits, and the search_tools text says it", async () => {
    const b = board({
      servers: {
        docs: scripted([tool("read_page", "Read a page of the manual")]),
        fs: { command: "node-x-does-not-exist", restart: { maxRestarts: 0, withinMs: 1000 } },
      },
    });
    await b.start();
    const hits = await b.searchTools("read the manual page");
    expect(hits.map((hit) => hit.name)).toEqual(["docs__read_page"]);
    expect(hits.unavailable).toEqual([{ server: "fs", state: "down", reason: expect.stringMatching(/command not found: node-x-does-not-exist/) }]);
    // The array is still a plain list of hits: the note is not one of its enumerable properties.
    expect(Object.keys(hits)).toEqual(["0"]);
    const text = searchResultText("read the manual page", hits);
    expect(text).toMatch(/^Found 1 tools, callable from now on:\n- docs__read_page: Read a page of the manual\n/);
    expect(text).toMatch(/Server fs is down \(command not found: node-x-does-not-exist .*\): its tools are not searched\.$/);
    expect(searchResultText("nothing", Object.assign([], { unavailable: hits.unavailable }))).toMatch(
      /^No tools match "nothing"\. Try other words\.\nServer fs is down/,
    );
  });

  it("says nothing when every server was searched", async () => {
    const b = board({ servers: { docs: scripted([tool("read_page", "Read a page of the manual")]) } });
    await b.start();
    const hits = await b.searchTools("manual");
    expect(hits.unavailable).toEqual([]);
    expect(searchResultText("manual", hits)).toBe("Found 1 tools, callable from now on:\n- docs__read_page: Read a page of the manual");
  });

  it("a cut-off out of 0..1 is a ConfigError naming the field", async () => {
    const b = board({ servers: { docs: scripted([]) } });
    await b.start();
    await expect(b.searchTools("x", { cutoff: 2 })).rejects.toThrow(/field "cutoff"/);
  });
});

/** A deterministic embedding: one dimension per concept, counting the concept's words in the text. */
const CONCEPTS = [
  ["money", "refund", "payment", "reimburse", "cash"],
  ["holiday", "vacation", "leave", "time"],
  ["weather", "rain", "forecast"],
];
function conceptEmbed(calls: string[][]) {
  return async (texts: string[]) => {
    calls.push(texts);
    return texts.map((text) => {
      const words = text.toLowerCase().split(/[^a-z]+/);
      return [...CONCEPTS.map((concept) => words.filter((word) => concept.includes(word)).length), 0.01];
    });
  };
}

describe("the embed hook", () => {
  const tools = [tool("give_back", "Return a card payment to the buyer"), tool("days_off", "Request vacation days"), tool("forecast", "Weather forecast")];

  it("finds by meaning what the words miss, fused with the full-text hits, and embeds each tool once", async () => {
    const calls: string[][] = [];
    const b = board({ servers: { hr: scripted(tools) }, embed: conceptEmbed(calls) });
    await b.start();
    const holiday = await b.searchTools("holiday", { limit: 1 });
    expect(holiday.map((hit) => hit.name)).toEqual(["hr__days_off"]);
    expect(holiday[0]).toMatchObject({ server: "hr", description: "Request vacation days" });
    const refund = await b.searchTools("cash refund please", { limit: 1 });
    expect(refund.map((hit) => hit.name)).toEqual(["hr__give_back"]);
    // Both lists agree on the forecast tool: it comes first, with a fused score.
    const forecast = await b.searchTools("weather forecast", { limit: 2 });
    expect(forecast[0].name).toBe("hr__forecast");
    expect(forecast[0].score).toBeGreaterThan(forecast[1].score);
    expect(calls.map((texts) => texts.length)).toEqual([3, 1, 1, 1]);
    expect(new ToolSearchIndex().search("holiday")).toEqual([]); // plain full text knows no "holiday"
  });

  it("a failing or malformed embed is reported as an error event, and the search answers from full text", async () => {
    const errors: Error[] = [];
    let mode: "throw" | "short" = "throw";
    const embed = async (texts: string[]) => {
      if (mode === "throw") throw new Error("embedding service unreachable");
      return texts.slice(1).map(() => [1, 0]);
    };
    const b = board({ servers: { hr: scripted(tools) }, embed });
    b.on("error", ({ error }) => errors.push(error));
    await b.start();
    expect((await b.searchTools("weather")).map((hit) => hit.name)).toEqual(["hr__forecast"]);
    mode = "short";
    expect((await b.searchTools("weather")).map((hit) => hit.name)).toEqual(["hr__forecast"]);
    expect(errors.map((error) => error.message)).toEqual([
      expect.stringMatching(/embed function failed.*embedding service unreachable/),
      expect.stringMatching(/embed function failed.*returned 2 vectors for 3 texts/),
    ]);
  });

  it("an embed that is not a function is a ConfigError naming the field", () => {
    expect(() => new Switchboard({ servers: {}, embed: "openai" as never })).toThrow(ConfigError);
    expect(() => new Switchboard({ servers: {}, embed: "openai" as never })).toThrow(/field "embed"/);
  });
});
