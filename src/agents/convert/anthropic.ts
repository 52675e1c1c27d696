/**
 * The neutral trace and Anthropic Messages, both ways. System messages become the `system` parameter;
 * tool results become `tool_result` blocks in a user message (with images and documents, as the
 * adapters make them), merged with a user message that follows. Thinking blocks go back only with
 * their signature (the API refuses unsigned ones): thinking from another provider is left out.
 */
import type { Tool } from "../../client/types.js";
import { toBlock, type AnthropicResultBlock, type AnthropicRunOptions } from "../../adapters/anthropic.js";
import { resultParts } from "../../adapters/media.js";
import { isArray, isObject } from "../../util/guards.js";
import type { ModelResponse } from "../model.js";
import { usageOf, type Block, type McpContent, type TraceMessage } from "../trace.js";
import { appendBlocks, asCallToolResult, checkTrace, describedMedia, joinedText, toolNames, TraceConversionError } from "./shared.js";

export type AnthropicContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content?: string | AnthropicResultBlock[]; is_error?: boolean }
  | { type: "image"; source: { type: string; media_type?: string; data?: string; url?: string } }
  | { type: "document"; source: { type: string; media_type?: string; data?: string; url?: string }; title?: string | null };

/** What `toAnthropicMessages` makes: a subset of the SDK's `MessageParam`. */
export type AnthropicContentBlockParam =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: AnthropicResultBlock[]; is_error?: true };
export interface AnthropicMessageParam {
  role: "user" | "assistant";
  content: AnthropicContentBlockParam[];
}

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicContentBlock[];
}

export type AnthropicConvertOptions = Pick<AnthropicRunOptions, "prefix" | "media" | "useStructuredContent">;

/** The trace as Anthropic's `system` (undefined without system messages) and `messages`. */
export function toAnthropicMessages(
  messages: readonly TraceMessage[],
  tools?: readonly Tool[],
  options: AnthropicConvertOptions = {},
): { system: string | undefined; messages: AnthropicMessageParam[] } {
  checkTrace(messages, "toAnthropicMessages");
  const names = toolNames(tools, "anthropic", options);
  const system = messages.filter((message) => message.role === "system").map((message) => joinedText(message.content));
  const out: AnthropicMessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: AnthropicContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    // Tool results and the user's next words are one user turn for the API.
    if (last !== undefined && last.role === role && role === "user") last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of messages) {
    if (message.role === "system") continue;
    const blocks = message.content.flatMap((block): AnthropicContentBlockParam[] => {
      switch (block.type) {
        case "text":
          // The API refuses empty text blocks.
          return block.text === "" ? [] : [{ type: "text", text: block.text }];
        case "thinking":
          if (block.signature === undefined || block.id !== undefined) return [];
          return block.redacted
            ? [{ type: "redacted_thinking", data: block.signature }]
            : [{ type: "thinking", thinking: block.text, signature: block.signature }];
        case "tool_use":
          return [{ type: "tool_use", id: block.id, name: names.toProvider(block.name), input: isObject(block.input) ? block.input : {} }];
        case "tool_result":
          return [
            {
              type: "tool_result",
              tool_use_id: block.toolUseId,
              content: resultParts(asCallToolResult(block), "anthropic", options).map(toBlock),
              ...(block.isError ? { is_error: true } : {}),
            },
          ];
      }
    });
    push(message.role === "assistant" ? "assistant" : "user", blocks);
  }
  return { system: system.length === 0 ? undefined : system.join("\n\n"), messages: out };
}

/**
 * Anthropic messages (and the `system` parameter) as a trace: a user message's `tool_result` blocks
 * become a tool message, its other blocks a user message after it.
 */
export function fromAnthropicMessages(
  messages: readonly AnthropicMessage[],
  tools?: readonly Tool[],
  options: Pick<AnthropicConvertOptions, "prefix"> & { system?: string | Array<{ type: "text"; text: string }> } = {},
): TraceMessage[] {
  if (!isArray(messages)) throw new TraceConversionError("fromAnthropicMessages: expected an array of Anthropic messages");
  const names = toolNames(tools, "anthropic", options);
  const trace: TraceMessage[] = [];
  const system = typeof options.system === "string" ? options.system : options.system?.map((block) => block.text).join("\n\n");
  if (system !== undefined && system !== "") trace.push({ role: "system", content: [{ type: "text", text: system }] });
  messages.forEach((message, i) => {
    if (typeof message !== "object" || message === null || (message.role !== "user" && message.role !== "assistant")) {
      throw new TraceConversionError(
        `fromAnthropicMessages: message ${i} needs role user or assistant, found ${JSON.stringify(isObject(message) ? message.role : message)}`,
      );
    }
    const blocks: AnthropicContentBlock[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (message.role === "assistant") {
      appendBlocks(trace, "assistant", assistantBlocks(blocks, names.toMcp));
      return;
    }
    const results: Block[] = [];
    const said: Block[] = [];
    for (const block of blocks) {
      if (block.type === "tool_result") {
        results.push({ type: "tool_result", toolUseId: block.tool_use_id, content: resultContent(block.content), isError: block.is_error === true });
      } else if (block.type === "text") said.push({ type: "text", text: block.text });
      else if (block.type === "image" || block.type === "document") said.push(describedMedia(block.type, block.source.media_type, block.source.data));
    }
    appendBlocks(trace, "tool", results);
    if (said.length > 0) trace.push({ role: "user", content: said });
  });
  return trace;
}

function assistantBlocks(blocks: readonly AnthropicContentBlock[], toMcp: (name: string) => string): Block[] {
  return blocks.flatMap((block): Block[] => {
    switch (block.type) {
      case "text":
        return [{ type: "text", text: block.text }];
      case "thinking":
        return [{ type: "thinking", text: block.thinking, signature: block.signature }];
      case "redacted_thinking":
        return [{ type: "thinking", text: "", signature: block.data, redacted: true }];
      case "tool_use":
        return [{ type: "tool_use", id: block.id, name: toMcp(block.name), input: block.input }];
      default:
        // Server tools (web search, code execution) run at Anthropic; their blocks are not MCP calls.
        return [];
    }
  });
}

function resultContent(content: string | AnthropicResultBlock[] | undefined): McpContent {
  if (content === undefined) return [];
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.map((block): McpContent[number] => {
    switch (block.type) {
      case "text":
        return { type: "text", text: block.text };
      case "image":
        return { type: "image", data: block.source.data, mimeType: block.source.media_type };
      case "document":
        return block.source.type === "text"
          ? { type: "resource", resource: { uri: block.title ?? "document.txt", mimeType: "text/plain", text: block.source.data } }
          : {
              type: "resource",
              resource: { uri: `file:///${encodeURIComponent(block.title ?? "document.pdf")}`, mimeType: block.source.media_type, blob: block.source.data },
            };
      case "tool_reference":
        return { type: "text", text: `Found tool: ${block.tool_name}` };
    }
  });
}

/** A Messages API response (`messages.create`) as the model's answer for `runAgent`. */
export function fromAnthropicMessage(response: unknown, tools?: readonly Tool[], options: Pick<AnthropicConvertOptions, "prefix"> = {}): ModelResponse {
  if (!isObject(response) || !Array.isArray(response.content)) {
    throw new TraceConversionError(`The Anthropic Messages response has no content array (got ${JSON.stringify(response)?.slice(0, 200)})`);
  }
  const usage = isObject(response.usage) ? response.usage : {};
  return {
    message: { role: "assistant", content: assistantBlocks(response.content as AnthropicContentBlock[], toolNames(tools, "anthropic", options).toMcp) },
    usage: usageOf({
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      totalTokens: undefined,
      cacheReadTokens: usage.cache_read_input_tokens,
      cacheWriteTokens: usage.cache_creation_input_tokens,
      reasoningTokens: undefined,
    }),
    stopReason: typeof response.stop_reason === "string" ? response.stop_reason : undefined,
  };
}
