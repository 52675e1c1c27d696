/**
 * What the framework bridges (bridges/ai.ts, bridges/langchain.ts) offer, the same way `runAgent` does:
 * the host's tools (eager); the pinned ones and a search (deferred), a found tool offered from then on
 * and an exact-name call of any tool run and loaded; `run_code` (code mode, with its own search on a big
 * catalog); or `run_code` always offered beside the pinned tools and a search answering with
 * declarations (code mode with deferred loading). Every combination is supported; a wrong option is a
 * ConfigError naming it.
 */
import { searchHost, SEARCH_TOOL_DESCRIPTION } from "../adapters/deferred.js";
import type { NameOptions } from "../adapters/names.js";
import { orderedTools, type ToolHost } from "../adapters/tool-runner.js";
import type { Tool } from "../client/types.js";
import { codeMode, type CodeModeOptions } from "../codemode/code-mode.js";
import { CODE_SEARCH_TOOL } from "../codemode/discovery.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { Switchboard } from "../switchboard/switchboard.js";
import { isObject } from "../util/guards.js";
import { pinnedToolsOf, searchResultText, type DeferredToolOptions } from "./deferred-tools.js";

export interface BridgeCodeModeOptions extends DeferredToolOptions {
  /** Offer `run_code` (code mode over a Switchboard host): `true`, or code mode's options. */
  codeMode?: boolean | CodeModeOptions | undefined;
}

/** One tool as a bridge offers it: the host that runs it and its provider name. */
export interface BridgeEntry {
  host: ToolHost;
  tool: Tool;
  name: string;
}

export interface BridgePlan {
  /** Offered from the start. */
  offered: BridgeEntry[];
  /** Deferred loading: the search tool's description, the search, and any tool by its exact provider name. */
  deferred?: {
    description: string;
    search(query: string, limit: number): Promise<{ found: BridgeEntry[]; text: string }>;
    find(name: string): BridgeEntry | undefined;
  };
}

export async function bridgePlan(host: ToolHost, options: BridgeCodeModeOptions & NameOptions): Promise<BridgePlan> {
  const pinned = pinnedToolsOf(options);
  const code = codeModeOf(host, options.codeMode, pinned !== undefined);
  const board = orderedTools(await host.listTools(), "openai", options).map(({ tool, name }) => ({ host, tool, name }));
  if (pinned === undefined) {
    if (code === undefined) return { offered: board };
    return { offered: orderedTools(await code.listTools(), "openai", options).map(({ tool, name }) => ({ host: code, tool, name })) };
  }
  const byMcpName = (names: readonly string[]) => board.filter((entry) => names.includes(entry.tool.name));
  const runCode = code === undefined ? [] : orderedTools([await code.tool()], "openai", options).map(({ tool, name }) => ({ host: code, tool, name }));
  return {
    offered: [...runCode, ...byMcpName(pinned)],
    deferred: {
      description: code === undefined ? SEARCH_TOOL_DESCRIPTION : CODE_SEARCH_TOOL.description!,
      search: async (query, limit) => {
        if (code !== undefined) {
          const { names, text } = await code.search(query, { limit });
          return { found: byMcpName(names), text };
        }
        const hits = await searchHost(host, query, limit);
        return { found: byMcpName(hits.map((hit) => hit.name)), text: searchResultText(query, hits) };
      },
      find: (name) => board.find((entry) => entry.name === name),
    },
  };
}

function codeModeOf(host: ToolHost, option: unknown, deferred: boolean): ReturnType<typeof codeMode> | undefined {
  if (option === undefined || option === false) return undefined;
  if (option !== true && !isObject(option)) throw new ConfigError(`expected true, false or code mode's options, found ${typeof option}`, { field: "codeMode" });
  if (!(host instanceof Switchboard))
    throw new ConfigError("code mode needs a Switchboard as the host (its calls go through the board)", { field: "codeMode" });
  const settings: CodeModeOptions = option === true ? {} : option;
  // Deferred: the model searches anyway, so run_code's description names only the servers.
  return codeMode(host, { ...settings, toolIndex: settings.toolIndex ?? (deferred ? "servers" : undefined) });
}
