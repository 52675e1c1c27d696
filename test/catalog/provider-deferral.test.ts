/**
 * Provider-native deferral: the shapes `toAnthropicTools` / `toOpenAITools` make under `deferLoading`,
 * checked against the installed `@anthropic-ai/sdk` and `openai` types (this file type-checks only if
 * they fit), and both run end to end through the scripted model server with the real SDK clients: a
 * search, a loaded tool called on a Switchboard, its result sent back.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, runAnthropicToolUses, runOpenAIToolCall, runOpenAIToolSearch, toAnthropicTools, toOpenAITools, type Tool } from "../../src/index.js";
import { startModelServer, type ModelServer, type Script } from "../fixtures/model-server.js";
import { acmeBoard } from "./acme-board.js";
import { catalogServers } from "./queries.js";

const catalog: Tool[] = Object.entries(catalogServers()).flatMap(([server, tools]) => tools.map((tool) => ({ ...tool, name: `${server}__${tool.name}` })));

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  cleanups = [];
});

async function modelServer(script: Script): Promise<ModelServer> {
  const server = await startModelServer(script);
  cleanups.push(() => server.close());
  return server;
}

describe("toAnthropicTools with deferLoading", () => {
  it("defers every tool but the pinned, and puts Anthropic's BM25 (or regex) search tool first; the SDK types accept it", () => {
    const tools: Anthropic.Messages.ToolUnion[] = toAnthropicTools(catalog, { deferLoading: { pinned: ["acme__payment_refund"] } });
    expect(tools[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    const functions = tools.slice(1) as Anthropic.Messages.Tool[];
    expect(functions).toHaveLength(catalog.length);
    expect(functions.filter((tool) => tool.defer_loading !== true).map((tool) => tool.name)).toEqual(["acme__payment_refund"]);
    const regex: Anthropic.Messages.ToolUnion[] = toAnthropicTools(catalog, { deferLoading: true, search: "regex" });
    expect(regex[0]).toEqual({ type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" });
    expect(regex.slice(1).every((tool) => (tool as Anthropic.Messages.Tool).defer_loading === true)).toBe(true);
  });

  it('search: "client" offers our search_tools tool (not deferred) instead', () => {
    const tools: Anthropic.Messages.ToolUnion[] = toAnthropicTools(catalog, { deferLoading: true, search: "client" });
    expect(tools[0]).toMatchObject({ name: "search_tools", input_schema: { type: "object", required: ["query"] } });
    expect((tools[0] as Anthropic.Messages.Tool).defer_loading).toBeUndefined();
  });

  it("without deferLoading nothing changes", () => {
    expect(toAnthropicTools(catalog).some((tool) => "defer_loading" in tool)).toBe(false);
    expect(toAnthropicTools(catalog, { deferLoading: false })).toEqual(toAnthropicTools(catalog));
  });

  it("wrong option types are ConfigErrors naming the field", () => {
    expect(() => toAnthropicTools(catalog, { deferLoading: "yes" as unknown as true })).toThrow(/field "deferLoading".*true, false or \{ pinned/);
    expect(() => toAnthropicTools(catalog, { deferLoading: { pinned: [1] } as unknown as true })).toThrow(ConfigError);
    expect(() => toAnthropicTools(catalog, { deferLoading: true, search: "fuzzy" as "bm25" })).toThrow(/field "search"/);
  });
});

describe("toOpenAITools (Responses) with deferLoading", () => {
  it("defers the tools inside one namespace per server, keeps pinned ones loaded, and adds tool_search; the SDK types accept it", () => {
    const tools: OpenAI.Responses.Tool[] = toOpenAITools(catalog, { api: "responses", deferLoading: { pinned: ["filesystem__read_text_file"] } });
    expect(tools[0]).toEqual({ type: "tool_search" });
    const namespaces = tools.filter((tool): tool is OpenAI.Responses.NamespaceTool => tool.type === "namespace");
    expect(namespaces.map((ns) => ns.name).sort()).toEqual(["acme", "everything", "filesystem", "github", "memory", "thinking"]);
    const github = namespaces.find((ns) => ns.name === "github")!;
    expect(github.description).toMatch(/^Tools of the github server: .*create_issue/);
    expect(github.tools.every((tool) => tool.type === "function" && tool.defer_loading === true)).toBe(true);
    const loaded = tools.filter((tool) => tool.type === "function");
    expect(loaded.map((tool) => tool.name)).toEqual(["filesystem__read_text_file"]);
    expect(loaded[0].defer_loading).toBeUndefined();
  });

  it("namespaces: false defers plain functions; toolSearch: client describes our search", () => {
    const tools: OpenAI.Responses.Tool[] = toOpenAITools(catalog, { api: "responses", deferLoading: true, namespaces: false, toolSearch: "client" });
    expect(tools[0]).toMatchObject({ type: "tool_search", execution: "client", parameters: { required: ["query"] } });
    expect(tools.slice(1).every((tool) => tool.type === "function" && tool.defer_loading === true)).toBe(true);
  });

  it("Chat Completions has no native deferral: a ConfigError pointing at the neutral path; wrong types too", () => {
    expect(() => toOpenAITools(catalog, { deferLoading: true })).toThrow(/toolLoading: "deferred"/);
    expect(() => toOpenAITools(catalog, { api: "responses", deferLoading: true, toolSearch: "local" as "client" })).toThrow(/field "toolSearch"/);
    expect(() => toOpenAITools(catalog, { api: "responses", deferLoading: true, namespaces: "yes" as unknown as boolean })).toThrow(/field "namespaces"/);
  });
});

describe("end to end through the scripted model server", () => {
  it("Anthropic, client search: search_tools answers with tool_reference blocks, the loaded tool runs on the board", async () => {
    const board = await acmeBoard(cleanups);
    const server = await modelServer([
      { toolCalls: [{ name: "search_tools", arguments: { query: "refund a card payment", limit: 3 } }] },
      { toolCalls: [{ name: "acme__payment_refund", arguments: { id: "pay_1" } }] },
      { text: "Refunded." },
    ]);
    const client = new Anthropic({ apiKey: "test", baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const tools = toAnthropicTools(await board.listTools(), { deferLoading: true, search: "client" });
    const messages: Anthropic.Messages.MessageParam[] = [{ role: "user", content: "Refund payment pay_1" }];
    for (let turn = 0; turn < 3; turn++) {
      const response = await client.messages.create({ model: "scripted", max_tokens: 100, messages, tools });
      messages.push({ role: "assistant", content: response.content });
      const uses = response.content.filter((block): block is Anthropic.Messages.ToolUseBlock => block.type === "tool_use");
      if (uses.length === 0) break;
      const results: Anthropic.Messages.ToolResultBlockParam[] = await runAnthropicToolUses(board, uses);
      messages.push({ role: "user", content: results });
    }
    const searchResult = server.requests[1].body.messages[2].content[0];
    expect(searchResult.type).toBe("tool_result");
    expect(searchResult.content[0]).toEqual({ type: "tool_reference", tool_name: "acme__payment_refund" });
    expect(searchResult.content.length).toBeLessThanOrEqual(3);
    expect(server.requests[2].body.messages[4].content[0].content[0].text).toBe('did payment_refund {"id":"pay_1"}');
    expect(
      server.requests[0].body.tools.filter((tool: { defer_loading?: boolean }) => tool.defer_loading !== true).map((tool: { name: string }) => tool.name),
    ).toEqual(["search_tools"]);
  });

  it("Anthropic, server-side BM25 search: the tools go out deferred, the loaded tool's call runs, the result goes back", async () => {
    const board = await acmeBoard(cleanups);
    const server = await modelServer([
      {
        toolSearch: { arguments: { query: "refund payment" }, found: ["acme__payment_refund"] },
        toolCalls: [{ name: "acme__payment_refund", arguments: { id: "pay_2" } }],
      },
      { text: "Done." },
    ]);
    const client = new Anthropic({ apiKey: "test", baseURL: server.anthropicBaseURL, maxRetries: 0 });
    const tools = toAnthropicTools(await board.listTools(), { deferLoading: true });
    const messages: Anthropic.Messages.MessageParam[] = [{ role: "user", content: "Refund payment pay_2" }];
    const first = await client.messages.create({ model: "scripted", max_tokens: 100, messages, tools });
    expect(first.content.map((block) => block.type)).toEqual(["server_tool_use", "tool_search_tool_result", "tool_use"]);
    messages.push({ role: "assistant", content: first.content });
    const uses = first.content.filter((block): block is Anthropic.Messages.ToolUseBlock => block.type === "tool_use");
    messages.push({ role: "user", content: await runAnthropicToolUses(board, uses) });
    const second = await client.messages.create({ model: "scripted", max_tokens: 100, messages, tools });
    expect(second.content).toEqual([{ type: "text", text: "Done." }]);
    expect(server.requests[0].body.tools[0]).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    expect(server.requests[1].body.messages[2].content[0].content[0].text).toBe('did payment_refund {"id":"pay_2"}');
  });

  it("OpenAI Responses, client tool_search: the found tools come back in tool_search_output, the loaded tool runs", async () => {
    const board = await acmeBoard(cleanups);
    const server = await modelServer([
      { toolSearch: { arguments: { query: "void an unpaid invoice" } } },
      { toolCalls: [{ name: "acme__invoice_void", arguments: { id: "in_7" } }] },
      { text: "Voided." },
    ]);
    const client = new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 });
    const options = { api: "responses", deferLoading: true, toolSearch: "client" } as const;
    const tools: OpenAI.Responses.Tool[] = toOpenAITools(await board.listTools(), options);
    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: "Void invoice in_7" }];
    for (let turn = 0; turn < 3; turn++) {
      const response = await client.responses.create({ model: "scripted", input, tools });
      input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
      let acted = false;
      for (const item of response.output) {
        if (item.type === "tool_search_call") {
          input.push(await runOpenAIToolSearch(board, { type: "tool_search_call", call_id: item.call_id, arguments: item.arguments }, options));
          acted = true;
        } else if (item.type === "function_call") {
          input.push(await runOpenAIToolCall(board, item));
          acted = true;
        }
      }
      if (!acted) break;
    }
    const output = server.requests[1].body.input.find((item: { type?: string }) => item.type === "tool_search_output");
    expect(output.call_id).toBe("tsc_1");
    expect(output.tools[0]).toMatchObject({ type: "function", name: "acme__invoice_void", strict: false });
    expect(output.tools[0].defer_loading).toBeUndefined();
    const result = server.requests[2].body.input.find((item: { type?: string }) => item.type === "function_call_output");
    expect(result.output).toBe('did invoice_void {"id":"in_7"}');
    expect(server.requests[0].body.tools[0]).toMatchObject({ type: "tool_search", execution: "client" });
  });
});
