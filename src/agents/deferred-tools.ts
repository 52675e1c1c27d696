/**
 * Provider-neutral deferred tool loading for `runAgent({ toolLoading: "deferred", pinnedTools })`, for
 * models without native tool search (Chat Completions, Gemini, your own): each turn offers the pinned
 * tools, the tools loaded so far and a `search_tools` tool. A search is answered here (the host's own
 * index on a Switchboard) with the names and descriptions of what it found, and those tools are
 * offered from the next turn on; a model that calls a tool it was not offered, by its exact name, gets
 * it run and loaded. Each step of the trace says what was searched and loaded.
 */
import { searchArguments, searchHost, SEARCH_TOOL_DESCRIPTION, SEARCH_TOOL_NAME, SEARCH_TOOL_SCHEMA } from "../adapters/deferred.js";
import type { ToolHost } from "../adapters/tool-runner.js";
import type { Tool } from "../client/types.js";
import { unavailableLines } from "../catalog/search-index.js";
import { ConfigError } from "../jsonrpc/errors.js";
import type { ToolLoadingState } from "./run-state.js";
import type { TurnResults } from "./tool-calls.js";
import type { ToolCallRecord, ToolResultBlock, ToolUseBlock } from "./trace.js";

/** What deferred loading did in one turn (on `AgentStep.toolLoading`). */
export interface ToolLoadingStep {
  /** The tools offered to the model in this turn (MCP names, `search_tools` included). */
  offered: string[];
  searches: Array<{ toolUseId: string; query: string; found: string[] }>;
  /** Tools loaded in this turn, offered from the next one on. */
  loaded: string[];
}

export interface DeferredToolOptions {
  /** `"eager"` (default): every tool every turn. `"deferred"`: pinned tools and `search_tools`, then what the model finds. */
  toolLoading?: "eager" | "deferred" | undefined;
  /** With `"deferred"`: tools offered from the first turn (MCP names, qualified on a Switchboard). */
  pinnedTools?: readonly string[] | undefined;
}

/** The search tool as the model sees it (an MCP-shaped tool, so every model adapter converts it). */
export const SEARCH_TOOL: Tool = {
  name: SEARCH_TOOL_NAME,
  description: SEARCH_TOOL_DESCRIPTION,
  inputSchema: SEARCH_TOOL_SCHEMA as unknown as Tool["inputSchema"],
};

/**
 * The run's deferred loading, or undefined for eager loading; wrong option types are ConfigErrors.
 * `restored` is a resumed run's (src/agents/run-state.ts): its tools are loaded again, and a resume
 * that does not say `toolLoading` goes on deferred, with the pinned tools it had.
 */
export function deferredTools(options: DeferredToolOptions, host: ToolHost, restored?: ToolLoadingState, code?: CodeSearch): DeferredTools | undefined {
  const pinned = pinnedToolsOf(options) ?? (options.toolLoading === undefined ? restored?.pinned : undefined);
  if (pinned === undefined) return undefined;
  const tools = new DeferredTools(host, pinned, code);
  for (const name of restored?.loaded ?? []) tools.restore(name);
  return tools;
}

/** The pinned tools when loading is deferred, undefined when eager; wrong option types are ConfigErrors. */
export function pinnedToolsOf(options: DeferredToolOptions): readonly string[] | undefined {
  const { toolLoading, pinnedTools } = options;
  if (toolLoading !== undefined && toolLoading !== "eager" && toolLoading !== "deferred") {
    throw new ConfigError(`expected "eager" or "deferred", found ${JSON.stringify(toolLoading)}`, { field: "toolLoading" });
  }
  if (pinnedTools !== undefined && !(Array.isArray(pinnedTools) && pinnedTools.every((name) => typeof name === "string"))) {
    throw new ConfigError("expected an array of tool names (strings)", { field: "pinnedTools" });
  }
  if (toolLoading !== "deferred") {
    if (pinnedTools !== undefined) throw new ConfigError('pinnedTools needs toolLoading: "deferred"', { field: "pinnedTools" });
    return undefined;
  }
  return pinnedTools ?? [];
}

/**
 * What the model reads back from a search: the tools found, by name, with their descriptions, and the
 * servers the search could not see (a board's results carry them), so the model does not conclude that
 * a tool is missing when its server is down.
 */
export function searchResultText(query: string, hits: ReadonlyArray<{ name: string; description: string | undefined }>): string {
  const found =
    hits.length === 0
      ? `No tools match "${query}". Try other words.`
      : `Found ${hits.length} tools, callable from now on:\n${hits.map((hit) => `- ${hit.name}: ${hit.description ?? ""}`).join("\n")}`;
  return [found, ...unavailableLines(hits)].join("\n");
}

/** Code mode under deferred loading (src/agents/code-mode.ts): `run_code` always offered, searches answered with declarations. */
export interface CodeSearch {
  runCode: string;
  search(query: string, limit: number): Promise<{ names: string[]; text: string }>;
}

export class DeferredTools {
  /** Pinned and found tools, in the order they were loaded. */
  private readonly loaded: Set<string>;
  private step: ToolLoadingStep = { offered: [], searches: [], loaded: [] };

  constructor(
    private readonly host: ToolHost,
    private readonly pinned: readonly string[],
    private readonly code?: CodeSearch,
  ) {
    this.loaded = new Set(code ? [code.runCode, ...pinned] : pinned);
  }

  /** What a checkpoint keeps, so a resumed run offers the same tools. */
  state(): ToolLoadingState {
    return { pinned: [...this.pinned], loaded: [...this.loaded].filter((name) => !this.pinned.includes(name)) };
  }

  /** A tool a resumed run had loaded: offered again, not reported as loaded in this run's steps. */
  restore(name: string): void {
    this.loaded.add(name);
  }

  /** This turn's tools: the loaded ones the host still has, and the search tool. */
  offered(all: readonly Tool[]): Tool[] {
    const offered = all.filter((tool) => this.loaded.has(tool.name));
    offered.push(SEARCH_TOOL);
    this.step = { offered: offered.map((tool) => tool.name), searches: [], loaded: [] };
    return offered;
  }

  /** Runs one turn's calls: searches here, the rest through `run` (which knows every tool, offered or not). */
  async run(uses: readonly ToolUseBlock[], all: readonly Tool[], run: (uses: readonly ToolUseBlock[]) => Promise<TurnResults>): Promise<TurnResults> {
    const known = new Set(all.map((tool) => tool.name));
    const searches = uses.filter((use) => use.name === SEARCH_TOOL_NAME && !known.has(SEARCH_TOOL_NAME));
    const others = uses.filter((use) => !searches.includes(use));
    const [searched, ran] = await Promise.all([Promise.all(searches.map((use) => this.search(use))), others.length > 0 ? run(others) : undefined]);
    for (const use of others) if (known.has(use.name)) this.load(use.name);
    // The results in the calls' order, as the model asked for them.
    const byId = new Map<string, { result: ToolResultBlock; record: ToolCallRecord }>();
    searched.forEach((entry, i) => byId.set(searches[i]!.id, entry));
    others.forEach((use, i) => byId.set(use.id, { result: ran!.results[i]!, record: ran!.records[i]! }));
    const ordered = uses.map((use) => byId.get(use.id)!);
    return { results: ordered.map((entry) => entry.result), records: ordered.map((entry) => entry.record) };
  }

  /** What this turn searched and loaded (for the step). */
  take(): ToolLoadingStep {
    return this.step;
  }

  private load(name: string): void {
    if (this.loaded.has(name)) return;
    this.loaded.add(name);
    this.step.loaded.push(name);
  }

  private async searchHost(query: string, limit: number): Promise<{ names: string[]; text: string }> {
    const hits = await searchHost(this.host, query, limit);
    return { names: hits.map((hit) => hit.name), text: searchResultText(query, hits) };
  }

  private async search(use: ToolUseBlock): Promise<{ result: ToolResultBlock; record: ToolCallRecord }> {
    const began = performance.now();
    const record = (isError: boolean): ToolCallRecord => ({
      toolUseId: use.id,
      name: use.name,
      server: undefined,
      tool: undefined,
      attempts: [],
      durationMs: performance.now() - began,
      isError,
    });
    try {
      const input = typeof use.input === "string" ? (JSON.parse(use.input) as unknown) : use.input;
      const { query, limit } = searchArguments(input);
      const { names, text } = this.code ? await this.code.search(query, limit) : await this.searchHost(query, limit);
      for (const name of names) this.load(name);
      this.step.searches.push({ toolUseId: use.id, query, found: names });
      return { result: { type: "tool_result", toolUseId: use.id, content: [{ type: "text", text }], isError: false }, record: record(false) };
    } catch (error) {
      const text = `Error: ${(error as Error).message}`;
      return { result: { type: "tool_result", toolUseId: use.id, content: [{ type: "text", text }], isError: true }, record: record(true) };
    }
  }
}
