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
import { ConfigError } from "../../jsonrpc/errors.js";
import { partsText, resultParts } from "../../adapters/media.js";
import { runProviderCall, toolDescription, type ToolHost } from "../../adapters/tool-runner.js";
import type { NameOptions } from "../../adapters/names.js";
import { searchArguments, SEARCH_TOOL_NAME, SEARCH_TOOL_SCHEMA } from "../../adapters/deferred.js";
import { bridgePlan, type BridgeCodeModeOptions, type BridgeEntry } from "../bridge-plan.js";

export type { DeferredToolOptions } from "../deferred-tools.js";
export type { BridgeCodeModeOptions } from "../bridge-plan.js";

export interface LangChainToolsOptions extends NameOptions, BridgeCodeModeOptions {
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
  const plan = await bridgePlan(host, options);
  const list = plan.offered.map((entry) => langChainTool(entry, options));
  const deferred = plan.deferred;
  if (deferred === undefined) return list;
  const load = (entry: BridgeEntry): DynamicStructuredTool => {
    const existing = list.find((candidate) => candidate.name === entry.name);
    if (existing !== undefined) return existing;
    const added = langChainTool(entry, options);
    list.push(added);
    return added;
  };
  // Deferred: the array is live; a search appends what it found, so bind the array again before each
  // model call (`deferredToolsMiddleware` does it for `createAgent`).
  list.push(
    new DynamicStructuredTool({
      name: SEARCH_TOOL_NAME,
      description: deferred.description,
      schema: SEARCH_TOOL_SCHEMA,
      func: async (input: unknown) => {
        const { query, limit } = searchArguments(input);
        const { found, text } = await deferred.search(query, limit);
        for (const entry of found) load(entry);
        return text;
      },
    }),
  );
  loaders.set(list, (name) => {
    const entry = deferred.find(name);
    return entry === undefined ? undefined : load(entry);
  });
  return list;
}

/** Each deferred array's loader: any host tool by its exact name, appended to the array on first use. */
const loaders = new WeakMap<readonly DynamicStructuredTool[], (name: string) => DynamicStructuredTool | undefined>();

/** A `createAgent` middleware (LangChain's request shapes, as far as used here). */
export interface DeferredToolsMiddleware {
  readonly name: string;
  wrapModelCall<R extends { tools: unknown[] }, T>(request: R, handler: (request: R) => T): T;
  wrapToolCall<R extends { toolCall: { name: string }; tool?: unknown }, T>(request: R, handler: (request: R) => T): T;
}

/**
 * A `createAgent` middleware for a deferred array from `toLangChainTools`: each model call is offered
 * what the array holds now (the pinned tools, the search, what searches found), and a tool call by an
 * exact name that was not offered runs that tool and loads it, as in `runAgent`. Pass it in
 * `createAgent({ tools, middleware: [deferredToolsMiddleware(tools)] })`.
 */
export function deferredToolsMiddleware(tools: readonly DynamicStructuredTool[]): DeferredToolsMiddleware {
  const loader = loaders.get(tools);
  if (loader === undefined) throw new ConfigError('expected the array toLangChainTools returned with toolLoading: "deferred"', { field: "tools" });
  return {
    // The brand LangChain's createMiddleware puts on a middleware (a registered symbol), so this entry needs only @langchain/core.
    [Symbol.for("AgentMiddleware")]: true,
    name: "DeferredTools",
    wrapModelCall: (request, handler) => handler({ ...request, tools: [...tools] }),
    wrapToolCall: (request, handler) =>
      handler({ ...request, tool: request.tool ?? tools.find((tool) => tool.name === request.toolCall.name) ?? loader(request.toolCall.name) }),
  };
}

function langChainTool({ host, tool, name }: BridgeEntry, options: LangChainToolsOptions): DynamicStructuredTool {
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
