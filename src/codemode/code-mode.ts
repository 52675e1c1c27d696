/**
 * `codeMode(board, options)`: the model writes a short program against typed tools instead of one tool
 * call per turn. `declarations()` is the typed API, `run(source)` executes a program in the sandbox
 * (engine.ts) with every call going through the board (bridge.ts), `tool()` is the one MCP tool
 * `run_code` a model is offered, and the object is itself a tool host (`listTools`/`callTool`), so
 * the OpenAI, Anthropic and Gemini runners execute `run_code` like any other tool.
 */
import { setMaxListeners } from "node:events";
import type { CallToolResult, Tool } from "../client/types.js";
import { ConfigError, ProtocolError } from "../jsonrpc/errors.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { isToolExposed, parseQualified, type ToolFilter } from "../switchboard/namespacing.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { asError, display, isObject } from "../util/guards.js";
import { searchArguments, SEARCH_TOOL_NAME } from "../adapters/deferred.js";
import { bridge, type CodeCall } from "./bridge.js";
import { declarationsOf, type ServerTools } from "./declarations.js";
import { CODE_SEARCH_TOOL, declarationsFound, RUN_CODE, runCodeTool, type ToolIndex } from "./discovery.js";
import type { EngineOutcome } from "./engine.js";
import { defaultWorkers, sharedPool, type EnginePool } from "./pool.js";
import type { CodeModeEvents } from "./events.js";
import { stripTypes } from "./strip.js";

export { RUN_CODE } from "./discovery.js";

/** Limits and settings of `codeMode(board, options)`; every limit applies per run. */
export interface CodeModeOptions {
  /**
   * Worker threads the runs execute in, one run per worker at a time; a run waits for a free one
   * (default: one per core, at least 2). Code modes asking for the same number share the workers.
   */
  workers?: number | undefined;
  /**
   * How much of the catalog `run_code`'s description carries (at most 8,000 characters): `"auto"`
   * (default), every declaration while they fit, else each server's tool names with `search_tools`
   * beside it; `"servers"`, only the servers (for deferred loading, where the model searches anyway).
   */
  toolIndex?: ToolIndex | undefined;
  /** Wall time per run, waiting on tools included (default 30 000): even a busy loop ends then. */
  timeoutMs?: number | undefined;
  /** The engine's heap per run (default 64 MiB): its WebAssembly memory cannot grow past 16 MiB more than this. */
  memoryLimitBytes?: number | undefined;
  /** The engine's stack per run (default 256 KiB): deep recursion ends in an `InternalError: stack overflow`. */
  maxStackBytes?: number | undefined;
  /** The returned value's JSON and the logs are each cut at this length, with a note (default 20 000). */
  maxOutputChars?: number | undefined;
  /** Which of the board's tools (qualified names) the code may see and call, like a server's `tools` filter. */
  tools?: Pick<ToolFilter, "only" | "except" | "filter"> | undefined;
  /** Passed to every `board.callTool` (`timeoutMs`, `idempotent`, `principal`, ...); the run's signal is added. */
  callOptions?: Record<string, unknown> | undefined;
  /** `around` each run and each call: `telemetry.codeModeEvents()` gives a `code.run` span with a child per call. */
  events?: CodeModeEvents | undefined;
}

/** Options of one `run`. */
export interface CodeRunOptions {
  /** Aborting it interrupts the engine and cancels the MCP calls in flight. */
  signal?: AbortSignal | undefined;
}

/** Why a run failed: a syntax error, a throw, an unknown tool, a limit, an abort. */
export interface CodeRunError {
  /** The error's class: `SyntaxError`, `ToolError`, `TimeoutError`, `AbortError`, `InternalError`, ... */
  name: string;
  /** Names the line of the code (and the tool, for a failed call). */
  message: string;
  /** The line of the code it happened on (1 is the code's first line), when known. */
  line?: number;
}

/** What `run` returns: never throws for the code's own failures. */
export interface CodeRunResult {
  /** What the code returned, as JSON data (`null` for nothing); a too long value is a string, cut with a note. */
  value: unknown;
  /** What `console.*` printed, one entry per call, cut at `maxOutputChars` in all. */
  logs: string[];
  /** Every tool call the code made, in the order they ended. */
  calls: CodeCall[];
  /** Set when the run failed; `value` is then `null`. */
  error?: CodeRunError;
}

interface Listing {
  catalog: string;
  index: Map<string, Map<string, string>>;
  grouped: ServerTools[];
  declarations: string;
  tool: Tool;
  /** `run_code`, and `search_tools` when the declarations did not fit in its description. */
  tools: Tool[];
}

const DEFAULTS = { timeoutMs: 30_000, memoryLimitBytes: 64 * 1024 * 1024, maxStackBytes: 256 * 1024, maxOutputChars: 20_000 };

/** Code mode over one board: see `codeMode`. */
export class CodeMode {
  private readonly limits: typeof DEFAULTS;
  private readonly pool: EnginePool;
  private cached: { from: readonly Tool[]; listing: Listing } | undefined;

  constructor(
    /** The board every call from code goes through. */
    readonly board: Switchboard,
    private readonly options: CodeModeOptions = {},
  ) {
    this.limits = checkLimits(options);
    this.pool = sharedPool(checkWorkers(options.workers));
    if (options.toolIndex !== undefined && options.toolIndex !== "auto" && options.toolIndex !== "servers")
      throw new ConfigError(`expected "auto" or "servers", found ${display(options.toolIndex)}`, { field: "toolIndex" });
  }

  /** The TypeScript declarations of `tools`, one object per server, for the tools the filter lets through. */
  async declarations(): Promise<string> {
    return (await this.listing()).declarations;
  }

  /** The MCP tool `run_code`: its description carries the declarations, or on a big catalog an index of the tools. */
  async tool(): Promise<Tool> {
    return (await this.listing()).tool;
  }

  /**
   * A tool host offering `run_code`, and `search_tools` beside it when the catalog is too big to declare
   * in `run_code`'s description: hand it to `runOpenAIToolCalls` and the other runners.
   */
  async listTools(): Promise<Tool[]> {
    return (await this.listing()).tools;
  }

  /** The tools matching `query` (the board's search, through the `tools` filter), as declarations. */
  async search(query: string, options: { limit?: number } = {}): Promise<{ names: string[]; declarations: string; text: string }> {
    const listing = await this.listing();
    const hits = await this.board.searchTools(query, { limit: options.limit ?? 5 });
    const found = new Map<string, ServerTools>();
    const names: string[] = [];
    for (const hit of hits) {
      for (const group of listing.grouped) {
        const entry = group.tools.find((candidate) => candidate.tool.name === hit.name);
        if (entry === undefined) continue;
        let subset = found.get(group.server);
        if (subset === undefined) found.set(group.server, (subset = { server: group.server, tools: [] }));
        subset.tools.push(entry);
        names.push(hit.name);
      }
    }
    const groups = [...found.values()];
    return { names, declarations: groups.length === 0 ? "" : declarationsOf(groups), text: declarationsFound(query, groups) };
  }

  /** Runs `run_code` (`{ code }`) for a model: the value or the error as text, with the logs; `isError` on failure. Answers `search_tools` too. */
  async callTool(name: string, args?: Record<string, unknown>, options?: Record<string, unknown>): Promise<CallToolResult> {
    if (name === SEARCH_TOOL_NAME && (await this.listing()).tools.includes(CODE_SEARCH_TOOL)) {
      try {
        const { query, limit } = searchArguments(args);
        return { content: [{ type: "text", text: (await this.search(query, { limit })).text }] };
      } catch (error) {
        return { isError: true, content: [{ type: "text", text: `Error: ${asError(error).message}` }] };
      }
    }
    if (name !== RUN_CODE) throw new ProtocolError(`Unknown tool: ${name} (code mode offers ${RUN_CODE})`, ErrorCode.InvalidParams, { tool: name });
    const code = isObject(args) ? args.code : undefined;
    if (typeof code !== "string") return { isError: true, content: [{ type: "text", text: `Error: ${RUN_CODE} needs { "code": string }` }] };
    const signal = options?.signal instanceof AbortSignal ? options.signal : undefined;
    return resultFor(await this.run(code, { signal }));
  }

  /** Runs JavaScript or TypeScript (the body of an async function) in a fresh sandbox; resolves, never rejects, for the code's failures. */
  async run(source: string, options: CodeRunOptions = {}): Promise<CodeRunResult> {
    if (typeof source !== "string") throw new ConfigError(`expected the code as a string, found ${typeof source}`, { field: "source" });
    const calls: CodeCall[] = [];
    const stripped = stripTypes(source);
    if (!stripped.ok)
      return { value: null, logs: [], calls, error: errorOf({ ok: false, name: "SyntaxError", message: stripped.message, line: stripped.line }) };
    const listing = await this.listing();
    const controller = new AbortController();
    // Each call in flight listens to it: `Promise.all` over many lookups is the point, not a leak.
    setMaxListeners(0, controller.signal);
    const outer = options.signal;
    const onAbort = () => controller.abort(outer?.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener("abort", onAbort, { once: true });
    const limits = { ...this.limits, maxLogChars: this.limits.maxOutputChars };
    const hostCall = bridge({
      board: this.board,
      index: listing.index,
      signal: controller.signal,
      callOptions: this.options.callOptions,
      events: this.options.events,
      calls,
    });
    const run = () => this.pool.run({ code: stripped.code, catalog: listing.catalog, hostCall, limits, signal: controller.signal });
    try {
      const { outcome, logs } = this.options.events?.around ? await this.options.events.around({ kind: "run", source }, run) : await run();
      if (!outcome.ok) return { value: null, logs, calls, error: errorOf(outcome) };
      return { value: this.valueOf(outcome.valueText), logs, calls };
    } finally {
      outer?.removeEventListener("abort", onAbort);
      // Calls the code started but never awaited end with the run.
      if (!controller.signal.aborted) controller.abort(new Error("the code run ended"));
    }
  }

  private valueOf(text: string): unknown {
    const max = this.limits.maxOutputChars;
    if (text.length <= max) return JSON.parse(text) as unknown;
    return `${text.slice(0, max)}… [${text.length - max} more characters left out; return less, or aggregate in the code]`;
  }

  private async listing(): Promise<Listing> {
    const all = await this.board.listTools();
    if (this.cached?.from === all) return this.cached.listing;
    const servers = new Set(this.board.serverNames);
    const filter = this.options.tools ?? {};
    const grouped = new Map<string, ServerTools>();
    const index = new Map<string, Map<string, string>>();
    for (const tool of all) {
      const parsed = parseQualified(tool.name, this.board.separator, servers);
      if (parsed === undefined || !isToolExposed(tool, filter)) continue;
      let group = grouped.get(parsed.server);
      if (group === undefined) grouped.set(parsed.server, (group = { server: parsed.server, tools: [] }));
      group.tools.push({ name: parsed.tool, tool });
      let names = index.get(parsed.server);
      if (names === undefined) index.set(parsed.server, (names = new Map<string, string>()));
      names.set(parsed.tool, tool.name);
    }
    const groups = [...grouped.values()];
    const declarations = declarationsOf(groups);
    const catalog = JSON.stringify(Object.fromEntries([...index].map(([server, names]) => [server, [...names.keys()]])));
    const { tool, inlined } = runCodeTool(groups, declarations, this.options.toolIndex);
    const listing: Listing = { catalog, index, grouped: groups, declarations, tool, tools: inlined ? [tool] : [tool, CODE_SEARCH_TOOL] };
    this.cached = { from: all, listing };
    return listing;
  }
}

/** Code mode over `board`: typed declarations of its tools, sandboxed runs whose calls go through the board, and `run_code`. */
export function codeMode(board: Switchboard, options: CodeModeOptions = {}): CodeMode {
  return new CodeMode(board, options);
}

function errorOf(outcome: Extract<EngineOutcome, { ok: false }>): CodeRunError {
  const where = outcome.line === undefined ? "" : ` (line ${outcome.line})`;
  return { name: outcome.name, message: `${outcome.message}${where}`, ...(outcome.line === undefined ? {} : { line: outcome.line }) };
}

/** What the model reads back from `run_code`: the value (or the error), then the logs. */
export function resultFor(out: CodeRunResult): CallToolResult {
  const parts: string[] = [];
  if (out.error) parts.push(`Error: ${out.error.name}: ${out.error.message}`);
  else parts.push(typeof out.value === "string" ? out.value : JSON.stringify(out.value));
  if (out.logs.length > 0) parts.push(`Logs:\n${out.logs.join("\n")}`);
  return { isError: out.error !== undefined, content: [{ type: "text", text: parts.join("\n\n") }] };
}

function checkWorkers(workers: unknown): number {
  if (workers === undefined) return defaultWorkers();
  if (typeof workers === "number" && Number.isInteger(workers) && workers >= 1 && workers <= 256) return workers;
  throw new ConfigError(`expected a whole number from 1 to 256, found ${display(workers)}`, { field: "workers" });
}

function checkLimits(options: CodeModeOptions): typeof DEFAULTS {
  if (!isObject(options)) throw new ConfigError("codeMode options must be an object", { field: "options" });
  const limits = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as Array<keyof typeof DEFAULTS>) {
    const value = options[key];
    if (value === undefined) continue;
    if (!(typeof value === "number" && Number.isInteger(value) && value > 0)) {
      throw new ConfigError(`expected a whole number > 0, found ${display(value)}`, { field: key });
    }
    limits[key] = value;
  }
  // Beyond about 1 MiB the host's own stack would overflow before the engine's check (measured: 512 KiB
  // already can under a test runner), and a small value leaves no room for the prelude.
  if (limits.maxStackBytes < 64 * 1024 || limits.maxStackBytes > 1024 * 1024) {
    throw new ConfigError(`expected between 65536 and 1048576 bytes, found ${limits.maxStackBytes}`, { field: "maxStackBytes" });
  }
  if (limits.memoryLimitBytes < 1024 * 1024)
    throw new ConfigError(`expected at least 1048576 bytes, found ${limits.memoryLimitBytes}`, { field: "memoryLimitBytes" });
  return limits;
}
