/** Anthropic Messages API tools: `{ name, description, input_schema }`, answered with `tool_result` blocks. */
import type { CallToolResult, Tool } from "../client/types.js";
import { blockText } from "./content.js";
import { providerToolName } from "./names.js";
import { normaliseInputSchema, type JsonSchema } from "./schema.js";
import { runProviderCall, type RunOptions, type ToolHost } from "./tool-runner.js";

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: JsonSchema;
}
export interface AnthropicToolUse {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}
export type AnthropicResultBlock =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } };
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: AnthropicResultBlock[];
  is_error?: true;
}

/** Image types the Messages API takes inline; other images are described as text. */
const INLINE_IMAGES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

export function toAnthropicTools(tools: readonly Tool[]): AnthropicTool[] {
  return tools.map((tool) => {
    const description = tool.description ?? tool.title ?? tool.annotations?.title;
    return { name: providerToolName(tool.name), ...(description === undefined ? {} : { description }), input_schema: normaliseInputSchema(tool.inputSchema) };
  });
}

/**
 * Runs one `tool_use` block on the right server and returns the `tool_result` block to send back.
 * Failures come back as `is_error` results, so the agent loop continues and the model can react.
 */
export async function runAnthropicToolUse(host: ToolHost, use: AnthropicToolUse, options?: RunOptions): Promise<AnthropicToolResult> {
  const { result } = await runProviderCall(host, use.name, use.input ?? {}, options);
  const block: AnthropicToolResult = { type: "tool_result", tool_use_id: use.id, content: toBlocks(result) };
  if (result.isError === true) block.is_error = true;
  return block;
}

/** Runs every `tool_use` block of one assistant turn at once; the results keep their order. */
export function runAnthropicToolUses(host: ToolHost, uses: readonly AnthropicToolUse[], options?: RunOptions): Promise<AnthropicToolResult[]> {
  return Promise.all(uses.map((use) => runAnthropicToolUse(host, use, options)));
}

function toBlocks(result: CallToolResult): AnthropicResultBlock[] {
  const blocks: AnthropicResultBlock[] = [];
  for (const block of result.content ?? []) {
    if (block.type === "image" && INLINE_IMAGES.has(block.mimeType)) {
      blocks.push({ type: "image", source: { type: "base64", media_type: block.mimeType, data: block.data } });
    } else {
      blocks.push({ type: "text", text: blockText(block) });
    }
  }
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  return blocks;
}
