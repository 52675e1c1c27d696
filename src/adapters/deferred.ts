/**
 * Deferred tool loading, shared by the provider adapters: which tools stay loaded (`pinned`), the
 * client-side search tool the model calls when the provider's own search is not used, and running
 * that search on a host. A Switchboard answers with its own index (`board.searchTools`); any other
 * host gets an index built once per tool list (src/catalog/search-index.ts).
 */
import { ToolSearchIndex, type ToolSearchHit } from "../catalog/search-index.js";
import type { Tool } from "../client/types.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";
import { oncePerList, type ToolHost } from "./tool-runner.js";

/** `true`: every tool deferred; `{ pinned }`: all but these (qualified MCP names or provider names). */
export type DeferLoading = boolean | { pinned: readonly string[] };

/** The name of the client-side search tool. */
export const SEARCH_TOOL_NAME = "search_tools";

export const SEARCH_TOOL_DESCRIPTION =
  "Search the available tools by what you want to do. Returns the best matching tools, which become callable. Use it before saying a tool is missing.";

export const SEARCH_TOOL_SCHEMA = {
  type: "object",
  properties: {
    query: { type: "string", description: "The task in a few words, e.g. 'refund a card payment'" },
    limit: { type: "integer", description: "How many tools at most (default 5)" },
  },
  required: ["query"],
  additionalProperties: false,
} as const;

/** A host that searches its own tools (a Switchboard). */
interface SearchingHost extends ToolHost {
  searchTools(query: string, options?: { limit?: number }): Promise<ToolSearchHit[]>;
}

/** The pinned names, or undefined when nothing is deferred; a wrong type is a ConfigError naming the field. */
export function pinnedOf(deferLoading: unknown, field = "deferLoading"): Set<string> | undefined {
  if (deferLoading === undefined || deferLoading === false) return undefined;
  if (deferLoading === true) return new Set();
  if (isObject(deferLoading) && Array.isArray(deferLoading.pinned) && deferLoading.pinned.every((name) => typeof name === "string")) {
    return new Set(deferLoading.pinned);
  }
  throw new ConfigError(`expected true, false or { pinned: string[] }, found ${describe(deferLoading)}`, { field });
}

/** Checks a value against a fixed set of options: a ConfigError naming the field otherwise. */
export function oneOf<T extends string>(value: unknown, options: readonly T[], field: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && (options as readonly string[]).includes(value)) return value as T;
  throw new ConfigError(`expected one of ${options.map((option) => JSON.stringify(option)).join(", ")}, found ${describe(value)}`, { field });
}

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value)}`;
}

/** The search's arguments from the model: `query` a string, `limit` a whole number 1..20 (default 5). */
export function searchArguments(args: unknown): { query: string; limit: number } {
  const query = isObject(args) && typeof args.query === "string" ? args.query : undefined;
  if (query === undefined) throw new Error(`${SEARCH_TOOL_NAME} needs { "query": string }`);
  const raw = isObject(args) ? args.limit : undefined;
  const limit = typeof raw === "number" && Number.isInteger(raw) ? Math.min(20, Math.max(1, raw)) : 5;
  return { query, limit };
}

/** The host's tools that match `query`, best first (qualified MCP names). */
export async function searchHost(host: ToolHost, query: string, limit: number): Promise<ToolSearchHit[]> {
  const searching = host as Partial<SearchingHost>;
  if (typeof searching.searchTools === "function") return searching.searchTools(query, { limit });
  const tools = await host.listTools();
  const index = oncePerList(tools, "search-index", () => {
    const built = new ToolSearchIndex();
    built.setServer(
      "",
      tools.map((tool: Tool) => ({ name: tool.name, tool })),
    );
    return built;
  });
  return index.search(query, { limit });
}
