/**
 * What the way back from a provider needs: something that lists and calls tools. A `Switchboard`
 * (namespaced names) and an `McpClient` (one server's names) both are. Per tool list (hosts hand out
 * the same cached array until the list changes) the provider names, their map back, and the tools'
 * converted forms are computed once.
 */
import type { CallToolResult, Tool } from "../client/types.js";
import { McpError, RequestCancelledError } from "../jsonrpc/errors.js";
import { compareCodeUnits, providerNames, type NameMap, type NameOptions, type NameRule } from "./names.js";
import type { PartOptions } from "./media.js";
import { decodeArguments } from "./schema.js";
import { budgetOf, checkMaxResultChars, cutResult } from "../switchboard/result-budget.js";
import { closestNames, UnknownToolError } from "../switchboard/tool-errors.js";

export interface ToolHost {
  listTools(): Promise<Tool[]>;
  callTool(name: string, args?: Record<string, unknown>, options?: Record<string, unknown>): Promise<CallToolResult>;
  /** Why a name the model was not offered cannot be called (a Switchboard's `missingTool`: a server that is not up is named). */
  missingTool?(name: string, offered?: Iterable<string>): Error;
}

/** Why `name` is not among `offered`: the host's own words when it has them, else "did you mean" over `offered`. */
export function missingToolError(host: object, name: string, offered: Iterable<string>): Error {
  const explaining = host as ToolHost;
  return typeof explaining.missingTool === "function" ? explaining.missingTool(name, offered) : new UnknownToolError(name, closestNames(name, offered));
}

export interface RunOptions extends NameOptions, Pick<PartOptions, "useStructuredContent"> {
  /** Passed to `callTool` (timeoutMs, signal, onProgress, idempotent, ...). */
  callOptions?: Record<string, unknown> | undefined;
  /**
   * The most of the result that reaches the model, in characters (images by bytes); the rest is left
   * out with a note. `callOptions.maxResultChars` wins; unset: the board's for the tool (its server's).
   */
  maxResultChars?: number | undefined;
}

/** The outcome of one provider tool call: the MCP result, or the error turned into a result the model can read. */
export interface RunOutcome {
  mcpName: string | undefined;
  result: CallToolResult;
  /** Set when the call failed before the tool could answer (unknown tool, bad arguments, transport failure). */
  error?: Error;
}

const perList = new WeakMap<readonly Tool[], Map<string, unknown>>();

/** A value computed once per tool list and key (the list's identity is the cache key). */
export function oncePerList<T>(tools: readonly Tool[], key: string, build: () => T): T {
  let cache = perList.get(tools);
  if (cache === undefined) perList.set(tools, (cache = new Map<string, unknown>()));
  if (!cache.has(key)) cache.set(key, build());
  return cache.get(key) as T;
}

/** The provider names of one tool list under one rule and prefix. */
export function namesOf(tools: readonly Tool[], rule: NameRule, options: NameOptions = {}): NameMap {
  return oncePerList(tools, `names:${rule}:${options.prefix ?? ""}`, () =>
    providerNames(
      tools.map((tool) => tool.name),
      rule,
      options,
    ),
  );
}

/** The list's tools in provider-name order, each with its provider name: the same order every time. */
export function orderedTools(tools: readonly Tool[], rule: NameRule, options: NameOptions = {}): Array<{ tool: Tool; name: string }> {
  return oncePerList(tools, `order:${rule}:${options.prefix ?? ""}`, () => {
    const names = namesOf(tools, rule, options);
    const seen = new Set<string>();
    const entries: Array<{ tool: Tool; name: string }> = [];
    for (const tool of tools) {
      if (seen.has(tool.name)) continue;
      seen.add(tool.name);
      entries.push({ tool, name: names.toProvider.get(tool.name)! });
    }
    return entries.sort((a, b) => compareCodeUnits(a.name, b.name));
  });
}

/** What a model reads about a tool: its description, else its title. */
export function toolDescription(tool: Tool): string | undefined {
  return tool.description ?? tool.title ?? tool.annotations?.title;
}

/**
 * Maps the provider's name back, turns the model's arguments back into what the tool's schema
 * accepts (see `decodeArguments`), and calls the tool. Failures become results the model can read,
 * except the caller's own cancellation: that stops the agent loop, so it is thrown.
 */
export async function runProviderCall(host: ToolHost, providerName: string, args: unknown, rule: NameRule, options: RunOptions = {}): Promise<RunOutcome> {
  let mcpName: string | undefined;
  const runBudget = checkMaxResultChars(options.maxResultChars, "maxResultChars");
  try {
    const tools = await host.listTools();
    const names = namesOf(tools, rule, options);
    mcpName = names.toMcp.get(providerName);
    if (mcpName === undefined) throw missingToolError(host, providerName, names.toMcp.keys());
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
      throw new McpError(`Arguments for ${providerName} must be a JSON object, got ${args === null ? "null" : Array.isArray(args) ? "an array" : typeof args}`);
    }
    const name = mcpName;
    const tool = oncePerList(tools, "byName", () => new Map(tools.map((t) => [t.name, t]))).get(name);
    const decoded = tool === undefined || args === undefined ? args : decodeArguments(tool.inputSchema, args);
    const result = await host.callTool(mcpName, decoded as Record<string, unknown> | undefined, options.callOptions);
    return { mcpName, result: cutResult(result, budgetOf(options.callOptions, runBudget, host, mcpName), mcpName) };
  } catch (error) {
    const signal = options.callOptions?.signal as AbortSignal | undefined;
    if (error instanceof RequestCancelledError && signal?.aborted) throw error;
    const failure = error instanceof Error ? error : new Error(String(error));
    return { mcpName, error: failure, result: { isError: true, content: [{ type: "text", text: `Error: ${failure.message}` }] } };
  }
}

/** Parses a provider's JSON arguments text; an empty text is no arguments. */
export function parseArguments(text: string | undefined): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (text === undefined || text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
