/**
 * OpenAI Responses tool search: deferred function tools (`defer_loading: true`), grouped per server into
 * `namespace` tools (OpenAI recommends namespaces for search: the model first sees one name and
 * description per server), and a `tool_search` tool, run by OpenAI (`execution: "server"`) or by us
 * (`"client"`: `runOpenAIToolSearch` answers the model's `tool_search_call` with the tools found).
 * Inside a namespace each function keeps its full provider name, so calls map back as without one.
 */
import { unavailableOf, type UnavailableServer } from "../catalog/search-index.js";
import type { Tool } from "../client/types.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { DEFAULT_SEPARATOR } from "../switchboard/namespacing.js";
import { providerToolName } from "./names.js";
import { searchArguments, searchHost, SEARCH_TOOL_DESCRIPTION, SEARCH_TOOL_SCHEMA } from "./deferred.js";
import type { JsonSchema } from "./schema.js";
import { namesOf, type ToolHost } from "./tool-runner.js";
import type { NameOptions } from "./names.js";
import type { OpenAIResponsesTool } from "./openai.js";

/** One server's tools under a shared name (Responses `namespace` tool). */
export interface OpenAINamespaceTool {
  type: "namespace";
  name: string;
  description: string;
  tools: OpenAIResponsesTool[];
}

/** The Responses `tool_search` tool. */
export interface OpenAIToolSearchTool {
  type: "tool_search";
  execution?: "server" | "client";
  description?: string;
  parameters?: JsonSchema;
}

/** A client-executed `tool_search_call` output item of the Responses API. */
export interface OpenAIToolSearchCall {
  type: "tool_search_call";
  call_id: string | null;
  arguments: unknown;
  execution?: "server" | "client";
}

/** The answer to a client-executed tool search: the tools found, loaded from now on. */
export interface OpenAIToolSearchOutput {
  type: "tool_search_output";
  call_id: string | null;
  execution: "client";
  status: "completed";
  tools: OpenAIResponsesTool[];
  /**
   * The servers the search could not see (down, still starting), as `board.searchTools` gives them.
   * Not enumerable, so it is never sent: a `tool_search_output` has no text for the model, and the
   * application tells the model itself when it wants to (docs/guide/catalogs.md shows how).
   */
  readonly unavailable?: readonly UnavailableServer[];
}

export interface DeferOptions {
  pinned: ReadonlySet<string>;
  execution: "server" | "client";
  namespaces: boolean;
  separator: string;
}

/** Marks the tools not pinned as deferred, groups them per server, and adds the `tool_search` tool. */
export function deferResponsesTools(
  list: OpenAIResponsesTool[],
  mcpNames: ReadonlyMap<string, string>,
  options: DeferOptions,
): Array<OpenAIResponsesTool | OpenAINamespaceTool | OpenAIToolSearchTool> {
  const search: OpenAIToolSearchTool =
    options.execution === "client"
      ? { type: "tool_search", execution: "client", description: SEARCH_TOOL_DESCRIPTION, parameters: SEARCH_TOOL_SCHEMA }
      : { type: "tool_search" };
  const out: Array<OpenAIResponsesTool | OpenAINamespaceTool | OpenAIToolSearchTool> = [search];
  const groups = new Map<string, OpenAINamespaceTool>();
  for (const tool of list) {
    const mcpName = mcpNames.get(tool.name) ?? tool.name;
    if (options.pinned.has(tool.name) || options.pinned.has(mcpName)) {
      out.push(tool);
      continue;
    }
    const marked = { ...tool, defer_loading: true as const };
    const at = options.namespaces ? mcpName.indexOf(options.separator) : -1;
    if (at <= 0) {
      out.push(marked);
      continue;
    }
    const server = mcpName.slice(0, at);
    let group = groups.get(server);
    if (group === undefined) {
      group = { type: "namespace", name: providerToolName(server, "openai"), description: "", tools: [] };
      groups.set(server, group);
      out.push(group);
    }
    group.tools.push(marked);
  }
  for (const [server, group] of groups) {
    const names = group.tools.map((tool) => (mcpNames.get(tool.name) ?? tool.name).slice(server.length + options.separator.length));
    group.description = `Tools of the ${server} server: ${names.join(", ")}`;
  }
  return out;
}

export function deferOptions(options: { toolSearch?: unknown; namespaces?: unknown; separator?: unknown }, pinned: ReadonlySet<string>): DeferOptions {
  const execution = options.toolSearch ?? "server";
  if (execution !== "server" && execution !== "client") {
    throw new ConfigError(`expected "server" or "client", found ${JSON.stringify(execution)}`, { field: "toolSearch" });
  }
  if (options.namespaces !== undefined && typeof options.namespaces !== "boolean") {
    throw new ConfigError(`expected a boolean, found ${typeof options.namespaces}`, { field: "namespaces" });
  }
  const separator = options.separator ?? DEFAULT_SEPARATOR;
  if (typeof separator !== "string" || separator === "") throw new ConfigError(`expected a non-empty string`, { field: "separator" });
  return { pinned, execution, namespaces: options.namespaces ?? true, separator };
}

/** The found tools for a client-executed `tool_search_call` (see `runOpenAIToolSearch`). */
export async function toolSearchOutput(
  host: ToolHost,
  call: OpenAIToolSearchCall,
  convert: (tools: readonly Tool[], options: NameOptions) => OpenAIResponsesTool[],
  options: NameOptions = {},
): Promise<OpenAIToolSearchOutput> {
  const tools = await host.listTools();
  let found: OpenAIResponsesTool[] = [];
  let unavailable: readonly UnavailableServer[] = [];
  try {
    const { query, limit } = searchArguments(typeof call.arguments === "string" ? JSON.parse(call.arguments) : call.arguments);
    const hits = await searchHost(host, query, limit);
    unavailable = unavailableOf(hits);
    const names = namesOf(tools, "openai", options).toMcp;
    const byName = new Map(convert(tools, options).map((tool) => [names.get(tool.name) ?? "", tool]));
    // Best first, as the search ranked them.
    found = hits.flatMap((hit) => byName.get(hit.name) ?? []);
  } catch {
    // Arguments the model got wrong find nothing; the model reads an empty result and may search again.
  }
  const output: OpenAIToolSearchOutput = { type: "tool_search_output", call_id: call.call_id, execution: "client", status: "completed", tools: found };
  return Object.defineProperty(output, "unavailable", { value: unavailable, enumerable: false });
}
