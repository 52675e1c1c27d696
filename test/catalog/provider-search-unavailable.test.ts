/**
 * The provider-native client-side searches say which servers they could not see, as `search_tools`
 * does: Anthropic's `tool_result` gets a text block beside its `tool_reference` blocks, and OpenAI's
 * `tool_search_output` carries them (not enumerable: the Responses item has no text for the model).
 */
import { describe, expect, it } from "vitest";
import { runAnthropicToolUse, runOpenAIToolSearch } from "../../src/index.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { boardsAfterEach } from "../switchboard/board-helpers.js";

const board = boardsAfterEach();
const docs = {
  transport: () =>
    new ScriptedServer().on("tools/list", () => ({
      tools: [{ name: "read_page", description: "Read a page of the manual", inputSchema: { type: "object" as const, properties: {} } }],
    })).clientSide,
  protocol: "legacy" as const,
};
const down = { command: "node-x-does-not-exist", restart: { maxRestarts: 0, withinMs: 1000 } };
const DOWN_LINE = /^Server fs is down \(command not found: node-x-does-not-exist.*\): its tools are not searched\.$/;

async function started(withDown: boolean) {
  const b = board({ servers: withDown ? { docs, fs: down } : { docs } });
  await b.start();
  return b;
}

const search = (query: string) => ({ type: "tool_use" as const, id: "tu_1", name: "search_tools", input: { query } });

describe("Anthropic client-side search", () => {
  it("adds a text block naming the down server after the tool_reference blocks", async () => {
    const result = await runAnthropicToolUse(await started(true), search("read the manual page"));
    expect(result.is_error).toBeUndefined();
    expect(result.content[0]).toEqual({ type: "tool_reference", tool_name: "docs__read_page" });
    expect(result.content).toHaveLength(2);
    expect(result.content[1]).toMatchObject({ type: "text", text: expect.stringMatching(DOWN_LINE) });
  });

  it("with no match, says so and names the down server in one text block", async () => {
    const result = await runAnthropicToolUse(await started(true), search("zzz"));
    expect(result.content).toHaveLength(1);
    const text = (result.content[0] as { text: string }).text.split("\n");
    expect(text[0]).toBe('No tools match "zzz".');
    expect(text[1]).toMatch(DOWN_LINE);
  });

  it("adds nothing when every server was searched", async () => {
    const result = await runAnthropicToolUse(await started(false), search("read the manual page"));
    expect(result.content).toEqual([{ type: "tool_reference", tool_name: "docs__read_page" }]);
  });
});

describe("OpenAI client-side tool_search", () => {
  const options = { api: "responses", deferLoading: true, toolSearch: "client" } as const;
  const call = (query: string) => ({ type: "tool_search_call" as const, call_id: "tsc_1", arguments: JSON.stringify({ query }) });

  it("carries the down server on `unavailable`, which is not sent", async () => {
    const output = await runOpenAIToolSearch(await started(true), call("read the manual page"), options);
    expect(output.tools.map((tool) => tool.name)).toEqual(["docs__read_page"]);
    expect(output.unavailable).toEqual([{ server: "fs", state: "down", reason: expect.stringMatching(/command not found: node-x-does-not-exist/) }]);
    expect(Object.keys(output)).not.toContain("unavailable");
    expect(JSON.stringify(output)).not.toContain("node-x-does-not-exist");
  });

  it("has an empty `unavailable` when every server was searched", async () => {
    const output = await runOpenAIToolSearch(await started(false), call("read the manual page"), options);
    expect(output.unavailable).toEqual([]);
  });
});
