/**
 * `runAgent({ codeMode })`: the run offers the model `run_code` (src/codemode/) instead of the board's
 * tools, alone or beside a few pinned ones. `run_code` runs through the same loop as any tool (the
 * run's `approve`, events and abort apply to it; the board's hooks to each call the code makes), and
 * its record in the trace carries the code, the calls it made and what it returned or printed.
 */
import type { ToolHost } from "../adapters/tool-runner.js";
import type { Tool } from "../client/types.js";
import { codeMode, RUN_CODE, resultFor, type CodeModeOptions } from "../codemode/code-mode.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { Switchboard } from "../switchboard/switchboard.js";
import { isObject } from "../util/guards.js";
import { SEARCH_TOOL_NAME } from "../adapters/deferred.js";
import type { CodeSearch } from "./deferred-tools.js";
import { viewOf, type AgentHost, type HostView } from "./host.js";

/** `runAgent({ codeMode })` as an object: code mode's options, and tools offered beside `run_code`. */
export interface AgentCodeModeOptions extends CodeModeOptions {
  /** Qualified tool names offered directly beside `run_code` (the model may call them itself). */
  pinned?: readonly string[] | undefined;
}

export interface AgentTools {
  listTools: () => Promise<Tool[]>;
  view: HostView;
  /** Code mode under deferred loading: what DeferredTools offers always and answers searches with. */
  codeSearch?: CodeSearch | undefined;
}

/** `lister` lists what the run may see (a principal's view of the board, say); calls go to `host`. */
export function agentTools(
  host: AgentHost,
  option: boolean | AgentCodeModeOptions | undefined,
  callOptions: Record<string, unknown> | undefined,
  lister: ToolHost | AgentHost = host,
  deferred = false,
): AgentTools {
  const inner = viewOf(host);
  if (option === undefined || option === false) return { listTools: () => lister.listTools(), view: inner };
  if (option !== true && !isObject(option)) throw new ConfigError(`expected true, false or an options object, found ${typeof option}`, { field: "codeMode" });
  if (!(host instanceof Switchboard)) {
    inner.dispose();
    throw new ConfigError("code mode needs a Switchboard as the host (its calls go through the board)", { field: "codeMode" });
  }
  const settings: AgentCodeModeOptions = option === true ? {} : option;
  // Deferred: the model searches anyway, so run_code's description names only the servers.
  const toolIndex = settings.toolIndex ?? (deferred ? "servers" : undefined);
  const code = codeMode(host, { ...settings, toolIndex, callOptions: settings.callOptions ?? callOptions });
  const pinned = new Set(settings.pinned ?? []);
  let cached: { from: readonly Tool[]; own: readonly Tool[]; tools: Tool[] } | undefined;
  // Deferred: every tool is listed (DeferredTools offers what is pinned or loaded, and runs an exact-name
  // call of any), `run_code` always offered, and searches answered with declarations. Eager: `run_code`
  // (and its own search on a big catalog) and the pinned tools.
  const offer = (all: readonly Tool[], own: readonly Tool[]) => (deferred ? [own[0]!, ...all] : [...own, ...all.filter((tool) => pinned.has(tool.name))]);
  const codeSearch: CodeSearch | undefined = deferred ? { runCode: RUN_CODE, search: async (query, limit) => await code.search(query, { limit }) } : undefined;
  let searches = false;
  return {
    codeSearch,
    listTools: async () => {
      const [all, own] = await Promise.all([lister.listTools(), code.listTools()]);
      if (cached?.from !== all || cached.own !== own) cached = { from: all, own, tools: offer(all, own) };
      searches = !deferred && own.some((tool) => tool.name === SEARCH_TOOL_NAME);
      return cached.tools;
    },
    view: {
      locate: (name) => (name === RUN_CODE || (searches && name === SEARCH_TOOL_NAME) ? { server: undefined, tool: name } : inner.locate(name)),
      call: async (name, args, options) => {
        if (searches && name === SEARCH_TOOL_NAME) return { result: await code.callTool(name, args), server: undefined, attempts: [] };
        if (name !== RUN_CODE) return inner.call(name, args, options);
        const source = typeof args.code === "string" ? args.code : "";
        const out = await code.run(source, { signal: options.signal as AbortSignal | undefined });
        return { result: resultFor(out), server: undefined, attempts: [], code: { source, ...out } };
      },
      dispose: () => inner.dispose(),
    },
  };
}
