/**
 * The neutral trace and OpenAI Responses input items, both ways. Tool results become
 * `function_call_output` items with text, images (`input_image`) and PDFs (`input_file`), as the
 * adapters make them. Thinking blocks that came from a Responses `reasoning` item (they keep its id,
 * and its `encrypted_content` as `signature`) go back as that item; other thinking is left out, since
 * the API takes reasoning only by item.
 */
import type { Tool } from "../../client/types.js";
import { responsesOutput, type OpenAIOutputPart, type OpenAIRunOptions } from "../../adapters/openai.js";
import { resultParts } from "../../adapters/media.js";
import { display, isArray, isObject } from "../../util/guards.js";
import type { ModelResponse } from "../model.js";
import { usageOf, type Block, type McpContent, type TraceMessage } from "../trace.js";
import {
  appendBlocks,
  argumentsText,
  asCallToolResult,
  checkTrace,
  dataUrlContent,
  describedMedia,
  inputOf,
  toolNames,
  TraceConversionError,
} from "./shared.js";

type InputContentPart =
  | { type: "input_text"; text: string }
  | { type: "output_text"; text: string; annotations?: unknown[] }
  | { type: "refusal"; refusal: string }
  | { type: "input_image"; image_url?: string | null; file_id?: string | null; detail?: string }
  | { type: "input_file"; file_data?: string; filename?: string; file_id?: string | null };

export type OpenAIResponsesItem =
  | { type?: "message"; role: "system" | "developer" | "user" | "assistant"; content: string | InputContentPart[]; id?: string; status?: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string; id?: string; status?: string }
  | { type: "function_call_output"; call_id: string; output: string | OpenAIOutputPart[]; id?: string; status?: string }
  | {
      type: "reasoning";
      id: string;
      summary: Array<{ type: "summary_text"; text: string }>;
      content?: Array<{ type: "reasoning_text"; text: string }>;
      encrypted_content?: string | null;
      status?: string;
    };

/** What `toOpenAIResponsesInput` makes: a subset of the SDK's `ResponseInputItem`. */
export type OpenAIResponsesInputItem =
  | { role: "system" | "user" | "assistant"; content: string | Array<{ type: "input_text"; text: string }> }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string | OpenAIOutputPart[] }
  | { type: "reasoning"; id: string; summary: Array<{ type: "summary_text"; text: string }>; encrypted_content?: string };

export type OpenAIResponsesConvertOptions = Pick<OpenAIRunOptions, "prefix" | "media" | "imageDetail" | "useStructuredContent">;

/** The trace as Responses `input` items. */
export function toOpenAIResponsesInput(
  messages: readonly TraceMessage[],
  tools?: readonly Tool[],
  options: OpenAIResponsesConvertOptions = {},
): OpenAIResponsesInputItem[] {
  checkTrace(messages, "toOpenAIResponsesInput");
  const names = toolNames(tools, "openai", options);
  const items: OpenAIResponsesInputItem[] = [];
  for (const message of messages) {
    if (message.role === "system" || message.role === "user") {
      const texts = message.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
      const only = texts.length === 1 ? texts[0] : undefined;
      items.push({ role: message.role, content: only ?? texts.map((text) => ({ type: "input_text" as const, text })) });
      continue;
    }
    for (const block of message.content) {
      switch (block.type) {
        case "text":
          items.push({ role: "assistant", content: block.text });
          break;
        case "thinking":
          if (block.id !== undefined) {
            items.push({
              type: "reasoning",
              id: block.id,
              summary: block.text === "" ? [] : [{ type: "summary_text", text: block.text }],
              ...(block.signature !== undefined ? { encrypted_content: block.signature } : {}),
            });
          }
          break;
        case "tool_use":
          items.push({ type: "function_call", call_id: block.id, name: names.toProvider(block.name), arguments: argumentsText(block.input) });
          break;
        case "tool_result":
          items.push({
            type: "function_call_output",
            call_id: block.toolUseId,
            output: responsesOutput(resultParts(asCallToolResult(block), "openai", options), options),
          });
          break;
      }
    }
  }
  return items;
}

/**
 * Responses items (a response's `output`, or `input` items) as a trace: consecutive assistant items
 * (reasoning, messages, function calls) as one assistant message, consecutive outputs as one tool
 * message. Function call outputs carry no error flag, so their results read `isError: false`.
 */
export function fromOpenAIResponsesItems(
  items: readonly OpenAIResponsesItem[],
  tools?: readonly Tool[],
  options: Pick<OpenAIResponsesConvertOptions, "prefix"> = {},
): TraceMessage[] {
  if (!isArray(items)) throw new TraceConversionError("fromOpenAIResponsesItems: expected an array of Responses items");
  const names = toolNames(tools, "openai", options);
  const trace: TraceMessage[] = [];
  items.forEach((item, i) => {
    if (typeof item !== "object" || item === null) throw new TraceConversionError(`fromOpenAIResponsesItems: item ${i} is not an object`);
    switch (item.type) {
      case undefined:
      case "message": {
        const role = item.role === "developer" ? "system" : item.role;
        if (role === "assistant") appendBlocks(trace, "assistant", contentBlocks(item.content));
        else if (role === "system" || role === "user") trace.push({ role, content: contentBlocks(item.content) });
        else
          throw new TraceConversionError(
            `fromOpenAIResponsesItems: item ${i} has role ${JSON.stringify(item.role)}; expected system, developer, user or assistant`,
          );
        break;
      }
      case "reasoning": {
        const texts = [...(item.summary ?? []), ...(item.content ?? [])].map((part) => part.text);
        appendBlocks(trace, "assistant", [
          {
            type: "thinking",
            text: texts.join("\n"),
            id: item.id,
            ...(typeof item.encrypted_content === "string" ? { signature: item.encrypted_content } : {}),
          },
        ]);
        break;
      }
      case "function_call":
        appendBlocks(trace, "assistant", [{ type: "tool_use", id: item.call_id, name: names.toMcp(item.name), input: inputOf(item.arguments) }]);
        break;
      case "function_call_output":
        appendBlocks(trace, "tool", [{ type: "tool_result", toolUseId: item.call_id, content: outputContent(item.output), isError: false }]);
        break;
      default:
        // Built-in tools (web search, file search, ...) run at OpenAI; their items are not MCP calls.
        break;
    }
  });
  return trace;
}

function contentBlocks(content: string | InputContentPart[]): Block[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.map((part): Block => {
    switch (part.type) {
      case "input_text":
      case "output_text":
        return { type: "text", text: part.text };
      case "refusal":
        return { type: "text", text: part.refusal };
      case "input_image": {
        const match = /^data:([^;,]+)[^,]*,(.*)$/s.exec(part.image_url ?? "");
        return match ? describedMedia("image", match[1], match[2]) : { type: "text", text: `[image: ${part.image_url ?? part.file_id ?? "?"}]` };
      }
      case "input_file":
        return describedMedia(`file ${part.filename ?? part.file_id ?? ""}`.trim(), undefined, part.file_data?.replace(/^data:[^,]*,/, ""));
    }
  });
}

function outputContent(output: string | OpenAIOutputPart[]): McpContent {
  if (typeof output === "string") return output === "" ? [] : [{ type: "text", text: output }];
  return output.map((part): McpContent[number] => {
    switch (part.type) {
      case "input_text":
        return { type: "text", text: part.text };
      case "input_image":
        return dataUrlContent(part.image_url, "image");
      case "input_file":
        return dataUrlContent(part.file_data, "file", part.filename);
    }
  });
}

/** A Responses API response (`responses.create`) as the model's answer for `runAgent`. */
export function fromOpenAIResponse(response: unknown, tools?: readonly Tool[], options: Pick<OpenAIResponsesConvertOptions, "prefix"> = {}): ModelResponse {
  if (!isObject(response) || !Array.isArray(response.output)) {
    throw new TraceConversionError(`The Responses API response has no output array (got ${JSON.stringify(response)?.slice(0, 200)})`);
  }
  if (response.status === "failed" || isObject(response.error)) {
    const error = isObject(response.error) ? response.error : {};
    throw new TraceConversionError(`The Responses API response failed: ${display(error.code ?? "")} ${display(error.message ?? "no message")}`.trim());
  }
  const trace = fromOpenAIResponsesItems(response.output as OpenAIResponsesItem[], tools, options);
  const content = trace.flatMap((message) => (message.role === "assistant" ? message.content : []));
  const usage = isObject(response.usage) ? response.usage : {};
  const inputDetails = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const outputDetails = isObject(usage.output_tokens_details) ? usage.output_tokens_details : {};
  const incomplete =
    isObject(response.incomplete_details) && typeof response.incomplete_details.reason === "string" ? response.incomplete_details.reason : undefined;
  return {
    message: { role: "assistant", content },
    usage: usageOf({
      inputTokens: usage.input_tokens,
      outputTokens: usage.output_tokens,
      totalTokens: usage.total_tokens,
      cacheReadTokens: inputDetails.cached_tokens,
      cacheWriteTokens: undefined,
      reasoningTokens: outputDetails.reasoning_tokens,
    }),
    stopReason: incomplete ?? (typeof response.status === "string" ? response.status : undefined),
  };
}
