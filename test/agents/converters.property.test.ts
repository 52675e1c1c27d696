/**
 * The trace converters, both ways, for any trace (fast-check): a trace converted to a provider's format
 * and back is the same trace, up to what that format cannot hold (Chat: thinking, error flags and media
 * in tool messages; Anthropic: unsigned thinking; Responses: thinking without its item id, error flags).
 * Names that the providers refuse (`docs.v2__search`) go out rewritten and come back as the MCP name.
 * The provider shapes are checked against the `openai` and `@anthropic-ai/sdk` types with `satisfies`.
 */
import type Anthropic from "@anthropic-ai/sdk";
import fc from "fast-check";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  fromAnthropicMessages,
  fromOpenAIChatMessages,
  fromOpenAIResponsesItems,
  toAnthropicMessages,
  toOpenAIChatMessages,
  toOpenAIResponsesInput,
  TraceConversionError,
  type Block,
  type Tool,
  type TraceMessage,
} from "../../src/index.js";

const tools: Tool[] = ["math__add", "docs.v2__search", "files__read file", "x".repeat(80)].map((name) => ({ name, inputSchema: { type: "object" } }));
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const text = fc.string({ minLength: 1, maxLength: 20 });
const json = fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.boolean()), { maxKeys: 3 });
type Content = "text" | "texts" | "media";

/** A trace: a system message, then user / assistant / tool rounds with unique call ids. */
function traceArb(content: Content, thinking: "signed" | "item" | "none"): fc.Arbitrary<TraceMessage[]> {
  const resultContent =
    content === "text"
      ? text.map((t) => [{ type: "text" as const, text: t }])
      : content === "texts"
        ? fc.array(
            text.map((t) => ({ type: "text" as const, text: t })),
            { minLength: 1, maxLength: 3 },
          )
        : fc.array(
            fc.oneof(
              text.map((t) => ({ type: "text" as const, text: t })),
              fc.constant({ type: "image" as const, data: png, mimeType: "image/png" }),
            ),
            { minLength: 1, maxLength: 3 },
          );
  const round = fc.record({
    thinking: thinking === "none" ? fc.constant(undefined) : fc.option(text, { nil: undefined }),
    texts: fc.array(text, { maxLength: content === "text" ? 1 : 2 }),
    calls: fc.array(
      fc.record({
        name: fc.constantFrom(...tools.map((t) => t.name)),
        input: json,
        result: resultContent,
        isError: content === "text" ? fc.constant(false) : fc.boolean(),
      }),
      { maxLength: 3 },
    ),
    user: fc.option(text, { nil: undefined }),
  });
  return fc.tuple(text, text, fc.array(round, { minLength: 1, maxLength: 4 })).map(([system, question, rounds]) => {
    const trace: TraceMessage[] = [
      { role: "system", content: [{ type: "text", text: system }] },
      { role: "user", content: [{ type: "text", text: question }] },
    ];
    rounds.forEach((r, i) => {
      const blocks: Block[] = [];
      if (r.thinking !== undefined)
        blocks.push(
          thinking === "signed"
            ? { type: "thinking", text: r.thinking, signature: `sig${i}` }
            : { type: "thinking", text: r.thinking, id: `rs_${i}`, signature: `enc${i}` },
        );
      blocks.push(...r.texts.map((t) => ({ type: "text" as const, text: t })));
      blocks.push(...r.calls.map((c, j) => ({ type: "tool_use" as const, id: `call_${i}_${j}`, name: c.name, input: c.input })));
      if (blocks.length === 0) blocks.push({ type: "text", text: "ok" });
      trace.push({ role: "assistant", content: blocks });
      if (r.calls.length > 0)
        trace.push({
          role: "tool",
          content: r.calls.map((c, j) => ({ type: "tool_result" as const, toolUseId: `call_${i}_${j}`, content: c.result, isError: c.isError })),
        });
      // Without calls the model's turn ends: a user speaks next.
      if (r.user !== undefined || r.calls.length === 0) trace.push({ role: "user", content: [{ type: "text", text: r.user ?? "go on" }] });
    });
    return trace;
  });
}

describe("trace <-> provider formats", () => {
  it("Anthropic: to and back is the same trace (signed thinking, error flags and images included)", () => {
    fc.assert(
      fc.property(traceArb("media", "signed"), (trace) => {
        const { system, messages } = toAnthropicMessages(trace, tools);
        messages satisfies Anthropic.MessageParam[];
        expect(messages.every((m, i) => i === 0 || m.role !== messages[i - 1].role || m.role === "assistant")).toBe(true);
        expect(fromAnthropicMessages(messages, tools, { system })).toEqual(trace);
      }),
    );
  });

  it("OpenAI Responses: to and back is the same trace, but for the error flag", () => {
    fc.assert(
      fc.property(traceArb("media", "item"), (trace) => {
        const input = toOpenAIResponsesInput(trace, tools);
        input satisfies OpenAI.Responses.ResponseInputItem[];
        const back = fromOpenAIResponsesItems(input, tools);
        const expected = trace.map((m) => ({
          ...m,
          content: m.content.map((b) => (b.type === "tool_result" ? { ...b, isError: false, content: mergeTexts(b.content) } : b)),
        }));
        expect(back).toEqual(expected);
      }),
    );
  });

  it("OpenAI Chat: to and back keeps text, calls and results; thinking is left out", () => {
    fc.assert(
      fc.property(traceArb("text", "none"), (trace) => {
        const messages = toOpenAIChatMessages(trace, tools);
        messages satisfies OpenAI.Chat.ChatCompletionMessageParam[];
        expect(fromOpenAIChatMessages(messages, tools)).toEqual(
          trace.map((m) => (m.role === "assistant" ? { ...m, content: joinAssistantText(m.content) } : m)),
        );
      }),
    );
  });

  it("names the provider refuses go out rewritten, the same as in the tools, and come back as MCP names", () => {
    const trace: TraceMessage[] = [{ role: "assistant", content: [{ type: "tool_use", id: "c1", name: "docs.v2__search", input: { q: "x" } }] }];
    const [message] = toOpenAIChatMessages(trace, tools);
    const sent = (message as { tool_calls: Array<{ function: { name: string } }> }).tool_calls[0].function.name;
    expect(sent).toMatch(/^docs_v2__search_[0-9a-f]{8}$/);
    expect(fromOpenAIChatMessages([message], tools)).toEqual(trace);
    expect(toAnthropicMessages(trace, tools).messages[0].content).toEqual([{ type: "tool_use", id: "c1", name: sent, input: { q: "x" } }]);
  });

  it("Chat media in tool results: described in the tool message, or sent in one user message after them", () => {
    const trace: TraceMessage[] = [
      { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "math__add", input: {} }] },
      {
        role: "tool",
        content: [
          {
            type: "tool_result",
            toolUseId: "c1",
            isError: false,
            content: [
              { type: "text", text: "look" },
              { type: "image", data: png, mimeType: "image/png" },
            ],
          },
        ],
      },
    ];
    expect(toOpenAIChatMessages(trace, tools)[1]).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "look\n[image 1: image/png; not sent: Chat Completions tool messages take text only]",
    });
    const withMedia = toOpenAIChatMessages(trace, tools, { chatMedia: "user-message" });
    expect(withMedia[2]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "Images and files returned by the tool calls c1 (math__add), in order:" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
      ],
    });
  });

  it("a malformed trace is a TraceConversionError naming the message and block", () => {
    expect(() => toAnthropicMessages([{ role: "assistant", content: [{ type: "tool_use", id: 3 }] }] as never)).toThrow(TraceConversionError);
    expect(() => toOpenAIChatMessages([{ role: "user", content: "hi" }] as never)).toThrow(
      'toOpenAIChatMessages: message 0 (user) needs content as an array of blocks, found "hi"',
    );
    expect(() => fromAnthropicMessages([{ role: "system", content: "x" }] as never)).toThrow(
      'fromAnthropicMessages: message 0 needs role user or assistant, found "system"',
    );
  });
});

function mergeTexts(content: Extract<Block, { type: "tool_result" }>["content"]): typeof content {
  // A text-only result goes out as one string and comes back as one text block.
  if (content.every((c) => c.type === "text")) return [{ type: "text", text: content.map((c) => (c as { text: string }).text).join("\n") }];
  return content;
}

function joinAssistantText(blocks: Block[]): Block[] {
  const texts = blocks.filter((b) => b.type === "text");
  const joined: Block[] = texts.length === 0 ? [] : [{ type: "text", text: texts.map((b) => (b as { text: string }).text).join("\n") }];
  return [...joined, ...blocks.filter((b) => b.type === "tool_use")];
}
