/**
 * Adapters between MCP tools and LLM tool formats, end to end: a Switchboard's namespaced tools become
 * OpenAI (Chat Completions and Responses) and Anthropic tools, and the provider's tool calls run on the
 * right server and come back in the provider's shape, failures included.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  RequestCancelledError,
  Switchboard,
  memoryPair,
  normaliseInputSchema,
  providerToolName,
  runAnthropicToolUse,
  runAnthropicToolUses,
  runOpenAIToolCall,
  runOpenAIToolCalls,
  toAnthropicTools,
  toOpenAITools,
  type Tool,
} from "../../src/index.js";
// @ts-expect-error: plain JS example server
import { createEchoServer } from "../../examples/servers/echo-tools.mjs";
import { toSdkTransport } from "../helpers/sdk-bridge.js";

let boards: Switchboard[] = [];
afterEach(async () => {
  await Promise.all(boards.map((b) => b.stop()));
  boards = [];
});

function echoTransport() {
  const [clientSide, serverSide] = memoryPair();
  void createEchoServer().connect(toSdkTransport(serverSide));
  return clientSide;
}

async function startBoard(): Promise<Switchboard> {
  const board = new Switchboard({ servers: { math: { transport: echoTransport }, "docs.v2": { transport: echoTransport } }, client: { protocol: "legacy" } });
  boards.push(board);
  await board.start();
  return board;
}

describe("provider tool names", () => {
  it("keeps names that fit and maps the rest to distinct, valid, stable names", () => {
    expect(providerToolName("math__add")).toBe("math__add");
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 1, maxLength: 200 }), (a, b) => {
        const pa = providerToolName(a);
        expect(pa).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        expect(providerToolName(a)).toBe(pa);
        if (a !== b) expect(providerToolName(b)).not.toBe(pa);
      }),
      { numRuns: 1000 },
    );
  });

  it("normalises schemas to a top-level object without $schema, leaving the input alone", () => {
    const input = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { a: { type: "number" } }, required: ["a"] };
    expect(normaliseInputSchema(input)).toEqual({ type: "object", properties: { a: { type: "number" } }, required: ["a"] });
    expect(input.$schema).toBeDefined();
    expect(normaliseInputSchema(undefined)).toEqual({ type: "object", properties: {} });
    expect(normaliseInputSchema({ type: "object", required: "a" })).toEqual({ type: "object", properties: {} });
  });
});

describe("OpenAI", () => {
  it("converts tools for Chat Completions and Responses", async () => {
    const board = await startBoard();
    const tools = await board.listTools();
    const chat = toOpenAITools(tools);
    const add = chat.find((t) => t.function.name === "math__add")!;
    expect(add).toMatchObject({ type: "function", function: { description: "Adds two numbers.", parameters: { type: "object", required: ["a", "b"] } } });
    expect(add.function.parameters).not.toHaveProperty("$schema");
    const dotted = chat.find((t) => t.function.name.startsWith("docs_v2__add_"))!;
    expect(dotted.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const responses = toOpenAITools(tools, { api: "responses" });
    expect(responses[0]).toMatchObject({ type: "function", name: chat[0].function.name, strict: false });
  });

  it("runs a turn's tool calls on the right servers, mapping sanitised names back", async () => {
    const board = await startBoard();
    const chat = toOpenAITools(await board.listTools());
    const dotted = chat.find((t) => t.function.name.startsWith("docs_v2__add_"))!.function.name;
    const answers = await runOpenAIToolCalls(board, [
      { id: "call_1", type: "function", function: { name: "math__add", arguments: '{"a":2,"b":3}' } },
      { id: "call_2", type: "function", function: { name: dotted, arguments: '{"a":20,"b":22}' } },
      { id: "call_3", type: "function", function: { name: "math__echo", arguments: "{not json" } },
      { id: "call_4", type: "function", function: { name: "nope__nothing", arguments: "{}" } },
      { id: "call_5", type: "function", function: { name: "math__fail", arguments: "" } },
    ]);
    expect(answers[0]).toEqual({ role: "tool", tool_call_id: "call_1", content: "5" });
    expect(answers[1]).toEqual({ role: "tool", tool_call_id: "call_2", content: "42" });
    expect(answers[2].content).toMatch(/^Error: the arguments for math__echo are not valid JSON/);
    expect(answers[3].content).toBe("Error: No tool named nope__nothing is available");
    expect(answers[4].content).toMatch(/always fails/);
  });

  it("answers a Responses API function_call with a function_call_output", async () => {
    const board = await startBoard();
    const output = await runOpenAIToolCall(board, { type: "function_call", call_id: "fc_1", name: "math__echo", arguments: '{"text":"hi"}' });
    expect(output).toEqual({ type: "function_call_output", call_id: "fc_1", output: "hi" });
  });
});

describe("the way back", () => {
  it("throws the caller's own cancellation instead of turning it into a tool answer", async () => {
    const board = await startBoard();
    const controller = new AbortController();
    const pending = runAnthropicToolUse(
      board,
      { type: "tool_use", id: "t", name: "math__slow", input: { ms: 5000 } },
      { callOptions: { signal: controller.signal } },
    );
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(RequestCancelledError);
  });
});

describe("Anthropic", () => {
  it("converts tools and runs tool_use blocks, errors as is_error results", async () => {
    const board = await startBoard();
    const tools = toAnthropicTools(await board.listTools());
    expect(tools.find((t) => t.name === "math__echo")).toMatchObject({
      description: "Returns its text.",
      input_schema: { type: "object", properties: { text: { type: "string" } } },
    });
    const [ok, failed] = await runAnthropicToolUses(board, [
      { type: "tool_use", id: "toolu_1", name: "math__echo", input: { text: "héllo" } },
      { type: "tool_use", id: "toolu_2", name: "math__fail", input: {} },
    ]);
    expect(ok).toEqual({ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "héllo" }] });
    expect(failed.is_error).toBe(true);
    const bad = await runAnthropicToolUse(board, { type: "tool_use", id: "toolu_3", name: "math__echo", input: [1, 2] });
    expect(bad).toMatchObject({ is_error: true, content: [{ type: "text", text: "Error: Arguments for math__echo must be a JSON object, got an array" }] });
  });

  it("passes images through inline and describes what it cannot inline", async () => {
    const host = {
      listTools: async (): Promise<Tool[]> => [{ name: "snap", inputSchema: { type: "object" } }],
      callTool: async () => ({
        content: [
          { type: "image" as const, mimeType: "image/png", data: "iVBORw0KGgo=" },
          { type: "image" as const, mimeType: "image/tiff", data: "AAAA" },
          { type: "resource_link" as const, uri: "file:///a.txt", name: "a.txt" },
        ],
      }),
    };
    const result = await runAnthropicToolUse(host, { type: "tool_use", id: "t", name: "snap", input: {} });
    expect(result.content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "text", text: "[image: image/tiff, 3 bytes; not sent: Anthropic does not take image/tiff here]" },
      { type: "text", text: "[resource link: file:///a.txt (a.txt)]" },
    ]);
  });
});
