/**
 * `mcp-switchboard/ai`: the host's tools as a Vercel AI SDK `ToolSet`, for `generateText`/`streamText`
 * and the SDK's agents. Names, schemas and results come from the adapters (the names OpenAI and
 * Anthropic accept, mapped back on each call; the non-strict JSON Schema form); every call goes through
 * the host, so supervision, fallbacks, hooks and approval still apply, and the AI SDK's abort signal
 * cancels it. This entry imports `ai` (a peer dependency); the package's main entry does not.
 *
 * @module mcp-switchboard/ai
 */
import { jsonSchema, tool, type Tool, type ToolSet } from "ai";
import type { CallToolResult, Tool as McpTool } from "../../client/types.js";
import { compileInputSchema } from "../../adapters/schema.js";
import { partsText, resultParts, type MediaTarget } from "../../adapters/media.js";
import { orderedTools, runProviderCall, toolDescription, type ToolHost } from "../../adapters/tool-runner.js";
import type { NameOptions } from "../../adapters/names.js";
import { searchArguments, searchHost, SEARCH_TOOL_DESCRIPTION, SEARCH_TOOL_NAME, SEARCH_TOOL_SCHEMA } from "../../adapters/deferred.js";
import { pinnedToolsOf, searchResultText, type DeferredToolOptions } from "../deferred-tools.js";

export type { DeferredToolOptions } from "../deferred-tools.js";

/** What a tool's `toModelOutput` returns (the AI SDK does not export the type under a name of its own). */
type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

export interface AISDKToolsOptions extends NameOptions, DeferredToolOptions {
  /** Passed to every `callTool` (`timeoutMs`, `idempotent`, ...); the AI SDK's abort signal is added. */
  callOptions?: Record<string, unknown> | undefined;
  /**
   * Whose image limits decide which images go to the model as `image-data` (the others are described):
   * `"anthropic"` (default: the strictest of the common ones), `"openai"` or `"gemini"`. `false`
   * describes every image and file.
   */
  media?: MediaTarget | false | undefined;
  /** Answer with the result's `structuredContent` in place of its text blocks. */
  useStructuredContent?: boolean | undefined;
}

/**
 * The host's tools (a Switchboard or an McpClient) as AI SDK tools. Each `execute` resolves with the
 * MCP `CallToolResult` (a failed call as an `isError` result, so the model can react); `toModelOutput`
 * turns it into text, or text with images and files, or `error-text`.
 */
export async function toAISDKTools(host: ToolHost, options: AISDKToolsOptions = {}): Promise<ToolSet> {
  const pinned = pinnedToolsOf(options);
  const tools = await host.listTools();
  const set: ToolSet = {};
  const entries = orderedTools(tools, "openai", options);
  for (const { tool: mcpTool, name } of entries) if (pinned === undefined || pinned.includes(mcpTool.name)) set[name] = aiTool(host, mcpTool, name, options);
  if (pinned === undefined) return set;
  // Deferred: the set is live. The AI SDK reads it again at every step, so a tool a search finds is
  // added to it and offered from the next step on.
  set[SEARCH_TOOL_NAME] = tool({
    description: SEARCH_TOOL_DESCRIPTION,
    inputSchema: jsonSchema(SEARCH_TOOL_SCHEMA as unknown as Parameters<typeof jsonSchema>[0]),
    execute: async (input: unknown): Promise<string> => {
      const { query, limit } = searchArguments(input);
      const hits = await searchHost(host, query, limit);
      for (const hit of hits) {
        const entry = entries.find((candidate) => candidate.tool.name === hit.name);
        if (entry !== undefined) set[entry.name] ??= aiTool(host, entry.tool, entry.name, options);
      }
      return searchResultText(query, hits);
    },
  });
  return set;
}

function aiTool(host: ToolHost, mcpTool: McpTool, name: string, options: AISDKToolsOptions): Tool {
  const description = toolDescription(mcpTool);
  return tool({
    ...(description === undefined ? {} : { description }),
    inputSchema: jsonSchema(compileInputSchema(mcpTool.inputSchema, "openai").schema as Parameters<typeof jsonSchema>[0]),
    execute: async (input: unknown, { abortSignal }): Promise<CallToolResult> => {
      const callOptions = { ...options.callOptions, ...(abortSignal ? { signal: abortSignal } : {}) };
      return (await runProviderCall(host, name, input ?? {}, "openai", { prefix: options.prefix, callOptions })).result;
    },
    toModelOutput: ({ output }) => modelOutput(output as CallToolResult, options),
  });
}

function modelOutput(result: CallToolResult, options: AISDKToolsOptions): ToolResultOutput {
  const target = options.media === false ? "anthropic" : (options.media ?? "anthropic");
  const parts = resultParts(result, target, { media: options.media !== false, useStructuredContent: options.useStructuredContent });
  const describe = (part: { kind: string; mimeType?: string | undefined }, i: number) => `[${part.kind} ${i}: ${part.mimeType ?? ""}]`;
  if (result.isError === true) return { type: "error-text", value: partsText(parts, describe) };
  if (!parts.some((part) => part.kind === "image" || part.kind === "document")) return { type: "text", value: partsText(parts, describe) };
  return {
    type: "content",
    value: parts.map((part) => {
      switch (part.kind) {
        case "image":
          return { type: "image-data" as const, data: part.data, mediaType: part.mimeType };
        case "document":
          return { type: "file-data" as const, data: part.data, mediaType: part.mimeType, filename: part.name };
        default:
          return { type: "text" as const, text: part.text };
      }
    }),
  };
}
