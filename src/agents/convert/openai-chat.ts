/**
 * The neutral trace and OpenAI Chat Completions messages, both ways. Tool results become `role: "tool"`
 * messages (text only, as the adapters make them; with `chatMedia: "user-message"` one user message
 * after them carries the images and PDFs). Chat has no place for thinking: thinking blocks are left
 * out on the way there, and a `reasoning_content` field (some compatible servers send one) becomes a
 * thinking block on the way back.
 */
import type { Tool } from "../../client/types.js";
import { chatMediaMessage, chatText, type OpenAIRunOptions, type OpenAIUserMessage } from "../../adapters/openai.js";
import { resultParts } from "../../adapters/media.js";
import { isArray, isObject } from "../../util/guards.js";
import type { ModelResponse } from "../model.js";
import { usageOf, type Block, type ToolResultBlock, type ToolUseBlock, type TraceMessage } from "../trace.js";
import { appendBlocks, argumentsText, asCallToolResult, checkTrace, describedMedia, inputOf, joinedText, toolNames, TraceConversionError } from "./shared.js";

export type OpenAIChatContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
  | { type: "file"; file: { file_data?: string; filename?: string; file_id?: string } }
  | { type: "input_audio"; input_audio: { data: string; format: string } }
  | { type: "refusal"; refusal: string };

export interface OpenAIChatFunctionCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type OpenAIChatMessage =
  | { role: "system" | "developer"; content: string | Array<{ type: "text"; text: string }> }
  | { role: "user"; content: string | OpenAIChatContentPart[] }
  | {
      role: "assistant";
      content?: string | null | OpenAIChatContentPart[];
      tool_calls?: OpenAIChatFunctionCall[];
      refusal?: string | null;
      reasoning_content?: string | null;
    }
  | { role: "tool"; tool_call_id: string; content: string | Array<{ type: "text"; text: string }> };

/** What `toOpenAIChatMessages` makes: a subset of the SDK's `ChatCompletionMessageParam`. */
export type OpenAIChatMessageParam =
  | { role: "system"; content: string }
  | { role: "user"; content: string | Array<{ type: "text"; text: string }> }
  | OpenAIUserMessage
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIChatFunctionCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export type OpenAIChatConvertOptions = Pick<OpenAIRunOptions, "prefix" | "media" | "imageDetail" | "chatMedia" | "useStructuredContent">;

/** The trace as Chat Completions messages, tool names as the tools sent to the model name them. */
export function toOpenAIChatMessages(
  messages: readonly TraceMessage[],
  tools?: readonly Tool[],
  options: OpenAIChatConvertOptions = {},
): OpenAIChatMessageParam[] {
  checkTrace(messages, "toOpenAIChatMessages");
  const names = toolNames(tools, "openai", options);
  const out: OpenAIChatMessageParam[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: joinedText(message.content) });
        break;
      case "user":
        out.push({ role: "user", content: userContent(message.content) });
        break;
      case "assistant": {
        const text = joinedText(message.content);
        const calls = message.content
          .filter((block): block is ToolUseBlock => block.type === "tool_use")
          .map((use): OpenAIChatFunctionCall => ({
            id: use.id,
            type: "function",
            function: { name: names.toProvider(use.name), arguments: argumentsText(use.input) },
          }));
        out.push({ role: "assistant", content: text === "" && calls.length > 0 ? null : text, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
        break;
      }
      case "tool": {
        const results = message.content.filter((block): block is ToolResultBlock => block.type === "tool_result");
        const withParts = results.map((block) => ({ block, parts: resultParts(asCallToolResult(block), "openai", options) }));
        for (const { block, parts } of withParts) out.push({ role: "tool", tool_call_id: block.toolUseId, content: chatText(parts, options) });
        if (options.chatMedia === "user-message") {
          const useNames = toolUseNames(messages);
          const media = chatMediaMessage(
            withParts.map(({ block, parts }) => ({ id: block.toolUseId, name: names.toProvider(useNames.get(block.toolUseId) ?? "tool"), parts })),
            options,
          );
          if (media !== undefined) out.push(media);
        }
        break;
      }
    }
  }
  return out;
}

function userContent(blocks: readonly Block[]): string | Array<{ type: "text"; text: string }> {
  const texts = blocks.filter((block) => block.type === "text");
  const only = texts.length === 1 ? texts[0] : undefined;
  if (only !== undefined) return only.text;
  return texts.map((block) => ({ type: "text" as const, text: block.text }));
}

function toolUseNames(messages: readonly TraceMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) for (const block of message.content) if (block.type === "tool_use") names.set(block.id, block.name);
  return names;
}

/**
 * Chat Completions messages as a trace: tool names mapped back to MCP names, consecutive tool messages
 * as one tool message. Chat tool messages carry no error flag, so their results read `isError: false`.
 */
export function fromOpenAIChatMessages(
  messages: readonly OpenAIChatMessage[],
  tools?: readonly Tool[],
  options: Pick<OpenAIChatConvertOptions, "prefix"> = {},
): TraceMessage[] {
  if (!isArray(messages)) throw new TraceConversionError("fromOpenAIChatMessages: expected an array of Chat Completions messages");
  const names = toolNames(tools, "openai", options);
  const trace: TraceMessage[] = [];
  messages.forEach((message, i) => {
    if (typeof message !== "object" || message === null) throw new TraceConversionError(`fromOpenAIChatMessages: message ${i} is not an object`);
    switch (message.role) {
      case "system":
      case "developer":
        trace.push({ role: "system", content: textBlocks(message.content) });
        break;
      case "user":
        trace.push({ role: "user", content: userBlocks(message.content) });
        break;
      case "assistant":
        appendBlocks(trace, "assistant", assistantBlocks(message, names.toMcp));
        break;
      case "tool":
        appendBlocks(trace, "tool", [{ type: "tool_result", toolUseId: message.tool_call_id, content: textBlocks(message.content), isError: false }]);
        break;
      default:
        throw new TraceConversionError(
          `fromOpenAIChatMessages: message ${i} has role ${JSON.stringify((message as { role: unknown }).role)}; expected system, developer, user, assistant or tool`,
        );
    }
  });
  return trace;
}

function textBlocks(content: unknown): Array<{ type: "text"; text: string }> {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => (isObject(part) && typeof part.text === "string" && part.text !== "" ? [{ type: "text" as const, text: part.text }] : []));
}

function userBlocks(content: string | OpenAIChatContentPart[]): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((part): Block => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text };
      case "image_url": {
        const match = /^data:([^;,]+)[^,]*,(.*)$/s.exec(part.image_url.url);
        return match ? describedMedia("image", match[1], match[2]) : { type: "text", text: `[image: ${part.image_url.url}]` };
      }
      case "file":
        return describedMedia(`file ${part.file.filename ?? part.file.file_id ?? ""}`.trim(), undefined, part.file.file_data?.replace(/^data:[^,]*,/, ""));
      case "input_audio":
        return describedMedia("audio", part.input_audio.format, part.input_audio.data);
      case "refusal":
        return { type: "text", text: part.refusal };
    }
  });
}

function assistantBlocks(message: Extract<OpenAIChatMessage, { role: "assistant" }>, toMcp: (name: string) => string): Block[] {
  const blocks: Block[] = [];
  if (typeof message.reasoning_content === "string" && message.reasoning_content !== "") blocks.push({ type: "thinking", text: message.reasoning_content });
  blocks.push(...textBlocks(message.content));
  if (typeof message.refusal === "string" && message.refusal !== "") blocks.push({ type: "text", text: message.refusal });
  for (const call of message.tool_calls ?? []) {
    if (call.type !== undefined && call.type !== "function") continue;
    blocks.push({ type: "tool_use", id: call.id, name: toMcp(call.function.name), input: inputOf(call.function.arguments) });
  }
  return blocks;
}

/** A Chat Completions response (`chat.completions.create`) as the model's answer for `runAgent`. */
export function fromOpenAIChatCompletion(completion: unknown, tools?: readonly Tool[], options: Pick<OpenAIChatConvertOptions, "prefix"> = {}): ModelResponse {
  const choice = isObject(completion) && isArray(completion.choices) ? completion.choices[0] : undefined;
  if (!isObject(choice) || !isObject(choice.message)) {
    throw new TraceConversionError(`The Chat Completions response has no choices[0].message (got ${JSON.stringify(completion)?.slice(0, 200)})`);
  }
  const message: TraceMessage = {
    role: "assistant",
    content: assistantBlocks(choice.message as Extract<OpenAIChatMessage, { role: "assistant" }>, toolNames(tools, "openai", options).toMcp),
  };
  const usage = isObject(completion) && isObject(completion.usage) ? completion.usage : {};
  const promptDetails = isObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completionDetails = isObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    message,
    usage: usageOf({
      inputTokens: usage.prompt_tokens,
      outputTokens: usage.completion_tokens,
      totalTokens: usage.total_tokens,
      cacheReadTokens: promptDetails.cached_tokens,
      cacheWriteTokens: undefined,
      reasoningTokens: completionDetails.reasoning_tokens,
    }),
    stopReason: typeof choice.finish_reason === "string" ? choice.finish_reason : undefined,
  };
}
