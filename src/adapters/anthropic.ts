/** Anthropic Messages API tools: `{ name, description, input_schema }`, answered with `tool_result` blocks. */
import type { Tool } from "../client/types.js";
import { compileInputSchema, type JsonSchema } from "./schema.js";
import { resultParts, type PartOptions, type ResultPart } from "./media.js";
import type { NameOptions } from "./names.js";
import { oncePerList, orderedTools, runProviderCall, toolDescription, type RunOptions, type ToolHost } from "./tool-runner.js";

export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

export interface AnthropicToolsOptions extends NameOptions {
  /**
   * Marks the last tool with `cache_control`, so the tool definitions (always sent in the same order)
   * become a cached prompt prefix. `true` is `{ type: "ephemeral" }`.
   */
  cacheControl?: boolean | AnthropicCacheControl | undefined;
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: JsonSchema & { type: "object" };
  cache_control?: AnthropicCacheControl;
}
export interface AnthropicToolUse {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}
export type AnthropicResultBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string } }
  | { type: "document"; source: { type: "base64"; media_type: "application/pdf"; data: string }; title?: string }
  | { type: "document"; source: { type: "text"; media_type: "text/plain"; data: string }; title?: string };
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: AnthropicResultBlock[];
  is_error?: true;
}

export type AnthropicRunOptions = RunOptions & Pick<PartOptions, "media">;

export function toAnthropicTools(tools: readonly Tool[], options: AnthropicToolsOptions = {}): AnthropicTool[] {
  const cache = options.cacheControl === true ? { type: "ephemeral" as const } : options.cacheControl || undefined;
  const key = `anthropic:${options.prefix ?? ""}:${JSON.stringify(cache ?? null)}`;
  const converted = oncePerList(tools, key, () => {
    const list: AnthropicTool[] = orderedTools(tools, "anthropic", options).map(({ tool, name }) => {
      const description = toolDescription(tool);
      const input_schema = compileInputSchema(tool.inputSchema, "anthropic").schema as AnthropicTool["input_schema"];
      return { name, ...(description === undefined ? {} : { description }), input_schema };
    });
    const last = list.at(-1);
    if (cache !== undefined && last !== undefined) list[list.length - 1] = { ...last, cache_control: cache };
    return list;
  });
  return converted.slice();
}

/**
 * Runs one `tool_use` block on the right server and returns the `tool_result` block to send back:
 * text, images and PDF documents as blocks, embedded text resources as text documents titled with
 * their URI. Failures come back as `is_error` results, so the agent loop continues and the model can react.
 */
export async function runAnthropicToolUse(host: ToolHost, use: AnthropicToolUse, options: AnthropicRunOptions = {}): Promise<AnthropicToolResult> {
  const { result } = await runProviderCall(host, use.name, use.input ?? {}, "anthropic", options);
  const block: AnthropicToolResult = { type: "tool_result", tool_use_id: use.id, content: resultParts(result, "anthropic", options).map(toBlock) };
  if (result.isError === true) block.is_error = true;
  return block;
}

/** Runs every `tool_use` block of one assistant turn at once; the results keep their order. */
export function runAnthropicToolUses(host: ToolHost, uses: readonly AnthropicToolUse[], options?: AnthropicRunOptions): Promise<AnthropicToolResult[]> {
  return Promise.all(uses.map((use) => runAnthropicToolUse(host, use, options)));
}

export function toBlock(part: ResultPart): AnthropicResultBlock {
  switch (part.kind) {
    case "text":
      return { type: "text", text: part.text };
    case "image":
      return { type: "image", source: { type: "base64", media_type: part.mimeType as "image/png", data: part.data } };
    case "document":
      return { type: "document", source: { type: "base64", media_type: "application/pdf", data: part.data }, title: part.name };
    case "resource":
      return { type: "document", source: { type: "text", media_type: "text/plain", data: part.text }, title: part.uri };
  }
}
