/**
 * What the converters between the neutral trace and the providers' message formats share: the tool
 * names each provider sees (and the way back), tool results as MCP results, and provider media parts
 * back as MCP content blocks.
 */
import type { CallToolResult, Tool } from "../../client/types.js";
import { McpError } from "../../jsonrpc/errors.js";
import { decodedBytes } from "../../adapters/content.js";
import { providerToolName, type NameOptions, type NameRule } from "../../adapters/names.js";
import { namesOf, parseArguments } from "../../adapters/tool-runner.js";
import { isObject } from "../../util/guards.js";
import type { Block, McpContent, Role, TextBlock, ToolResultBlock, TraceMessage } from "../trace.js";

/** A trace or provider message the converters cannot read. */
export class TraceConversionError extends McpError {}

/** The names a provider sees for the host's tools, and the way back, for one tool list. */
export interface ToolNames {
  toProvider: (mcpName: string) => string;
  toMcp: (providerName: string) => string;
}

/**
 * Names from the tool list (the same map the adapters' tool converters use, so names in messages match
 * names in the tools sent); a name the list does not have is fitted alone on the way out and kept as it
 * is on the way back.
 */
export function toolNames(tools: readonly Tool[] | undefined, rule: NameRule, options: NameOptions = {}): ToolNames {
  const map = tools === undefined ? undefined : namesOf(tools, rule, options);
  const prefixed = (name: string) => (options.prefix ? `${options.prefix}__${name}` : name);
  return {
    toProvider: (name) => map?.toProvider.get(name) ?? providerToolName(prefixed(name), rule),
    toMcp: (name) => map?.toMcp.get(name) ?? name,
  };
}

/** A tool_use block's input as provider argument text. */
export function argumentsText(input: unknown): string {
  return typeof input === "string" ? input : JSON.stringify(input ?? {});
}

/** Provider argument text as a tool_use input: the parsed object, or the text itself when it is not JSON. */
export function inputOf(argumentsJson: string | undefined): unknown {
  const parsed = parseArguments(argumentsJson);
  return parsed.ok ? parsed.value : argumentsJson;
}

/** A tool_result block as the MCP result the adapters' result converters take. */
export function asCallToolResult(block: ToolResultBlock): CallToolResult {
  return {
    content: block.content,
    ...(block.isError ? { isError: true } : {}),
    ...(block.structuredContent ? { structuredContent: block.structuredContent } : {}),
  };
}

/** The text blocks of a message joined with newlines (for places that take one string). */
export function joinedText(blocks: readonly Block[]): string {
  return blocks
    .filter((block): block is TextBlock => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/** An image or file given as a data URL, back as MCP content; anything else described as text. */
export function dataUrlContent(url: string, kind: "image" | "file", filename?: string): McpContent[number] {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  const mimeType = match?.[1];
  const data = match?.[2];
  if (mimeType === undefined || data === undefined) return { type: "text", text: `[${kind}: ${url.startsWith("data:") ? "data URL" : url}]` };
  if (kind === "image" && mimeType.startsWith("image/")) return { type: "image", data, mimeType };
  return { type: "resource", resource: { uri: `file:///${encodeURIComponent(filename ?? "document")}`, mimeType, blob: data } };
}

/** Media a user message carries, which the trace (text only for users) keeps as a description. */
export function describedMedia(what: string, mimeType: string | undefined, base64: string | undefined): TextBlock {
  const size = base64 === undefined ? "" : `, ${decodedBytes(base64)} bytes`;
  return { type: "text", text: `[${what}${mimeType ? `: ${mimeType}` : ""}${size}]` };
}

/**
 * Checks the shape of trace messages (what `runAgent` and the converters read), with the index and
 * what was found in the error.
 */
export function checkTrace(messages: unknown, where: string): TraceMessage[] {
  if (!Array.isArray(messages)) throw new TraceConversionError(`${where}: expected an array of messages, found ${describe(messages)}`);
  messages.forEach((message, i) => {
    if (!isObject(message) || !ROLES.has(message.role as Role)) {
      throw new TraceConversionError(
        `${where}: message ${i} needs a role of system, user, assistant or tool, found ${describe(isObject(message) ? message.role : message)}`,
      );
    }
    if (!Array.isArray(message.content)) {
      throw new TraceConversionError(
        `${where}: message ${i} (${String(message.role)}) needs content as an array of blocks, found ${describe(message.content)}`,
      );
    }
    message.content.forEach((block: unknown, j: number) => {
      const problem = blockProblem(block);
      if (problem !== undefined) throw new TraceConversionError(`${where}: message ${i} (${String(message.role)}), block ${j}: ${problem}`);
    });
  });
  return messages as TraceMessage[];
}

const ROLES = new Set<Role>(["system", "user", "assistant", "tool"]);

function blockProblem(block: unknown): string | undefined {
  if (!isObject(block)) return `expected a block object, found ${describe(block)}`;
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? undefined : "a text block needs text (a string)";
    case "thinking":
      return typeof block.text === "string" ? undefined : "a thinking block needs text (a string)";
    case "tool_use":
      return typeof block.id === "string" && typeof block.name === "string" ? undefined : "a tool_use block needs id and name (strings)";
    case "tool_result":
      return typeof block.toolUseId === "string" && Array.isArray(block.content) && typeof block.isError === "boolean"
        ? undefined
        : "a tool_result block needs toolUseId (a string), content (an array of MCP content blocks) and isError (a boolean)";
    default:
      return `unknown block type ${describe(block.type)} (expected text, tool_use, tool_result or thinking)`;
  }
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
  return typeof value;
}

/**
 * Appends assistant or tool blocks to the last message when it has the same role (providers split one
 * turn over several items or messages: Responses items, Chat tool messages), else starts a new message.
 */
export function appendBlocks(trace: TraceMessage[], role: Role, blocks: Block[]): void {
  if (blocks.length === 0) return;
  const last = trace[trace.length - 1];
  if (last !== undefined && last.role === role && (role === "assistant" || role === "tool")) last.content.push(...blocks);
  else trace.push({ role, content: blocks });
}
