/** Anthropic Messages API tools: `{ name, description, input_schema }`, answered with `tool_result` blocks. */
import type { Tool } from "../client/types.js";
import { unavailableLines } from "../catalog/search-index.js";
import { compileInputSchema, type JsonSchema } from "./schema.js";
import { resultParts, type PartOptions, type ResultPart } from "./media.js";
import type { NameOptions } from "./names.js";
import { namesOf, oncePerList, orderedTools, runProviderCall, toolDescription, type RunOptions, type ToolHost } from "./tool-runner.js";
import { oneOf, pinnedOf, searchArguments, searchHost, SEARCH_TOOL_DESCRIPTION, SEARCH_TOOL_NAME, SEARCH_TOOL_SCHEMA, type DeferLoading } from "./deferred.js";

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
  /**
   * Tool search: every tool not pinned gets `defer_loading: true`, and the list gets a search tool, so
   * only what the model finds is loaded into its context.
   */
  deferLoading?: DeferLoading | undefined;
  /**
   * With `deferLoading`: `"bm25"` (default) or `"regex"`, Anthropic's tool search tool (it searches on
   * Anthropic's side); `"client"`, our search as a `search_tools` tool whose results are
   * `tool_reference` blocks (`runAnthropicToolUse` answers it).
   */
  search?: "bm25" | "regex" | "client" | undefined;
}

/** Anthropic's own tool search tool (server-side), BM25 or regular expressions. */
export type AnthropicToolSearchTool =
  { type: "tool_search_tool_bm25_20251119"; name: "tool_search_tool_bm25" } | { type: "tool_search_tool_regex_20251119"; name: "tool_search_tool_regex" };

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: JsonSchema & { type: "object" };
  cache_control?: AnthropicCacheControl;
  defer_loading?: true;
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
  | { type: "document"; source: { type: "text"; media_type: "text/plain"; data: string }; title?: string }
  /** A tool the client-side search found: Anthropic loads its definition. */
  | { type: "tool_reference"; tool_name: string };
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: AnthropicResultBlock[];
  is_error?: true;
}

export type AnthropicRunOptions = RunOptions & Pick<PartOptions, "media">;

export function toAnthropicTools(tools: readonly Tool[], options?: AnthropicToolsOptions & { deferLoading?: false | undefined }): AnthropicTool[];
export function toAnthropicTools(tools: readonly Tool[], options: AnthropicToolsOptions): Array<AnthropicTool | AnthropicToolSearchTool>;
export function toAnthropicTools(tools: readonly Tool[], options: AnthropicToolsOptions = {}): Array<AnthropicTool | AnthropicToolSearchTool> {
  const cache = options.cacheControl === true ? { type: "ephemeral" as const } : options.cacheControl || undefined;
  const pinned = pinnedOf(options.deferLoading);
  const search = oneOf(options.search, ["bm25", "regex", "client"] as const, "search") ?? "bm25";
  if (pinned !== undefined) return deferred(toAnthropicTools(tools, { ...options, deferLoading: false }), tools, pinned, search);
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

/** Every tool not pinned deferred, and the search tool first (never deferred: the model needs it from turn 1). */
function deferred(
  list: AnthropicTool[],
  tools: readonly Tool[],
  pinned: ReadonlySet<string>,
  search: "bm25" | "regex" | "client",
): Array<AnthropicTool | AnthropicToolSearchTool> {
  const mcpNames = namesOf(tools, "anthropic").toMcp;
  const marked = list.map((tool) => (pinned.has(tool.name) || pinned.has(mcpNames.get(tool.name) ?? "") ? tool : { ...tool, defer_loading: true as const }));
  const searchTool: AnthropicTool | AnthropicToolSearchTool =
    search === "client"
      ? { name: SEARCH_TOOL_NAME, description: SEARCH_TOOL_DESCRIPTION, input_schema: SEARCH_TOOL_SCHEMA as unknown as AnthropicTool["input_schema"] }
      : search === "regex"
        ? { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }
        : { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" };
  return [searchTool, ...marked];
}

/**
 * The client-side search: `tool_reference` blocks for the tools found (a text block when none), and a
 * text block naming the servers the search could not see (down, still starting), as `search_tools` says it.
 */
async function runSearch(host: ToolHost, use: AnthropicToolUse, options: AnthropicRunOptions): Promise<AnthropicToolResult> {
  try {
    const { query, limit } = searchArguments(use.input);
    const names = namesOf(await host.listTools(), "anthropic", options).toProvider;
    const hits = await searchHost(host, query, limit);
    const content: AnthropicResultBlock[] = hits.flatMap((hit) => {
      const name = names.get(hit.name);
      return name === undefined ? [] : [{ type: "tool_reference" as const, tool_name: name }];
    });
    const lines = [...(content.length === 0 ? [`No tools match "${query}".`] : []), ...unavailableLines(hits)];
    if (lines.length > 0) content.push({ type: "text", text: lines.join("\n") });
    return { type: "tool_result", tool_use_id: use.id, content };
  } catch (error) {
    return { type: "tool_result", tool_use_id: use.id, content: [{ type: "text", text: `Error: ${(error as Error).message}` }], is_error: true };
  }
}

/**
 * Runs one `tool_use` block on the right server and returns the `tool_result` block to send back:
 * text, images and PDF documents as blocks, embedded text resources as text documents titled with
 * their URI. Failures come back as `is_error` results, so the agent loop continues and the model can react.
 */
export async function runAnthropicToolUse(host: ToolHost, use: AnthropicToolUse, options: AnthropicRunOptions = {}): Promise<AnthropicToolResult> {
  if (use.name === SEARCH_TOOL_NAME && !namesOf(await host.listTools(), "anthropic", options).toMcp.has(SEARCH_TOOL_NAME)) return runSearch(host, use, options);
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
