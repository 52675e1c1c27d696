/**
 * `mcp-switchboard/langchain`: the host's tools as LangChain.js `DynamicStructuredTool`s, for a chat
 * model's `bindTools` and LangChain's agents. Names and JSON Schemas come from the adapters (the names
 * OpenAI and Anthropic accept, mapped back on each call); every call goes through the host, so
 * supervision, fallbacks, hooks and approval still apply, and the run's `signal` cancels it. This entry
 * imports `@langchain/core` (a peer dependency); the package's main entry does not.
 *
 * @module mcp-switchboard/langchain
 */
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool } from "@langchain/core/tools";
import type { RunnableConfig } from "@langchain/core/runnables";
import { compileInputSchema } from "../../adapters/schema.js";
import { partsText, resultParts } from "../../adapters/media.js";
import { orderedTools, runProviderCall, toolDescription, type ToolHost } from "../../adapters/tool-runner.js";
import type { NameOptions } from "../../adapters/names.js";
import type { Tool } from "../../client/types.js";
import { searchArguments, searchHost, SEARCH_TOOL_DESCRIPTION, SEARCH_TOOL_NAME, SEARCH_TOOL_SCHEMA } from "../../adapters/deferred.js";
import { pinnedToolsOf, searchResultText, type DeferredToolOptions } from "../deferred-tools.js";

export type { DeferredToolOptions } from "../deferred-tools.js";

export interface LangChainToolsOptions extends NameOptions, DeferredToolOptions {
  /** Passed to every `callTool` (`timeoutMs`, `idempotent`, ...); the run's signal is added. */
  callOptions?: Record<string, unknown> | undefined;
  /** Answer with the result's `structuredContent` in place of its text blocks. */
  useStructuredContent?: boolean | undefined;
}

/**
 * The host's tools (a Switchboard or an McpClient) as LangChain tools. Called with a tool call (as
 * agents do), a tool answers with a `ToolMessage` whose `status` is `"error"` for an `isError` result
 * or a failed call, whose content is the result's text (images and files described), and whose
 * `artifact` is the whole MCP `CallToolResult`; called with plain arguments it answers with the text.
 */
export async function toLangChainTools(host: ToolHost, options: LangChainToolsOptions = {}): Promise<DynamicStructuredTool[]> {
  const pinned = pinnedToolsOf(options);
  const entries = orderedTools(await host.listTools(), "openai", options);
  const list = entries
    .filter(({ tool }) => pinned === undefined || pinned.includes(tool.name))
    .map(({ tool, name }) => langChainTool(host, tool, name, options));
  if (pinned === undefined) return list;
  // Deferred: the array is live; a search appends what it found, so bind the array again before each model call.
  list.push(
    new DynamicStructuredTool({
      name: SEARCH_TOOL_NAME,
      description: SEARCH_TOOL_DESCRIPTION,
      schema: SEARCH_TOOL_SCHEMA,
      func: async (input: unknown) => {
        const { query, limit } = searchArguments(input);
        const hits = await searchHost(host, query, limit);
        for (const hit of hits) {
          const entry = entries.find((candidate) => candidate.tool.name === hit.name);
          if (entry !== undefined && !list.some((existing) => existing.name === entry.name)) list.push(langChainTool(host, entry.tool, entry.name, options));
        }
        return searchResultText(query, hits);
      },
    }),
  );
  return list;
}

function langChainTool(host: ToolHost, tool: Tool, name: string, options: LangChainToolsOptions): DynamicStructuredTool {
  return new DynamicStructuredTool({
    name,
    description: toolDescription(tool) ?? name,
    schema: compileInputSchema(tool.inputSchema, "openai").schema as Record<string, unknown>,
    func: async (input: unknown, _runManager, config?: RunnableConfig & { toolCall?: { id?: string } }) => {
      const callOptions = { ...options.callOptions, ...(config?.signal ? { signal: config.signal } : {}) };
      const { result } = await runProviderCall(host, name, input ?? {}, "openai", { prefix: options.prefix, callOptions });
      const text = partsText(resultParts(result, "openai", { media: false, useStructuredContent: options.useStructuredContent }), () => "");
      const id = config?.toolCall?.id;
      if (id === undefined) return text;
      return new ToolMessage({ content: text, artifact: result, tool_call_id: id, name, status: result.isError === true ? "error" : "success" });
    },
  });
}
