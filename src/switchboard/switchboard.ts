/**
 * Switchboard: many MCP servers by name, each supervised, behind one namespaced API. Calls are routed
 * on plain per-server state (ServerRuntime); the supervisor actor owns the servers' lifecycles.
 */
import { EventEmitter } from "eventemitter3";
import { createActor, type Actor } from "xstate";
import type { CallToolOptions } from "../client/client.js";
import type { McpClient } from "../client/client.js";
import type { ClientOptions } from "../client/options.js";
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool } from "../client/types.js";
import type { RequestOptions } from "../connection/request-options.js";
import type { LogParams } from "../connection/events.js";
import { ConfigError, ProtocolError } from "../jsonrpc/errors.js";
import type { ChildEmitted, ChildSpec } from "../supervisor/child-machine.js";
import { isIdempotentTool } from "../supervisor/routing.js";
import { supervisorMachine } from "../supervisor/supervisor-machine.js";
import type { Transport } from "../transports/transport.js";
import { loadConfig, parseConfig, type LoadConfigOptions } from "./config.js";
import type { ConfigInput, ServerEntryInput, SwitchboardConfig } from "./config-types.js";
import type { SwitchboardEvents } from "./events.js";
import { applyAfter, applyBefore, refusalOf, refusedResult, runHook, type CallContext, type SwitchboardHooks } from "./hooks.js";
import { applyToolFilter, isToolExposed, parseQualified, qualify } from "./namespacing.js";
import { route, type WhileRestarting } from "./router.js";
import { ServerRuntime, type RunnableEntry, type ServerState } from "./server-runtime.js";

/** A server written in code: a config entry, or a transport factory in place of `command`/`url`. */
export type ServerInit = ServerEntryInput & {
  /** Builds the transport for each (re)start (e.g. a memory pair, or a custom transport). */
  transport?: () => Transport;
  /** Client options for this server: handlers, protocol, ... */
  client?: ClientOptions;
};

export interface SwitchboardInit {
  servers: Record<string, ServerInit>;
  /** Between server and tool names (default "__"). */
  separator?: string;
  /** Client options for every server (a server's own `client` wins). */
  client?: ClientOptions;
  hooks?: SwitchboardHooks;
  /**
   * A call for a server that is restarting: `"fallback"` (default) goes to the next server in its
   * fallback list at once, waiting only at the last one; `"wait"` waits (up to the call's timeout) for
   * each server in turn.
   */
  whileRestarting?: WhileRestarting;
  /** `start()` resolves when every server is up or down, or after this many ms (default 30000). */
  startTimeoutMs?: number;
}

export interface BoardCallOptions extends CallToolOptions {
  /** The call may safely run twice (overrides the tool's annotations) for fallback decisions. */
  idempotent?: boolean;
}

export interface ServerStatus {
  state: ServerState;
  restarts: number;
  lastError: string | undefined;
  downReason: string | undefined;
  inFlight: number;
  queued: number;
  circuit: "closed" | "open" | "half-open";
  protocolVersion: string | undefined;
  fallbacks: string[];
}

type FromConfigOptions = LoadConfigOptions & Omit<SwitchboardInit, "servers" | "separator">;

export class Switchboard extends EventEmitter<SwitchboardEvents> {
  readonly separator: string;
  private readonly runtimes = new Map<string, ServerRuntime>();
  private readonly hooks: SwitchboardHooks;
  private readonly whileRestarting: WhileRestarting;
  private readonly startTimeoutMs: number;
  private supervisor: Actor<typeof supervisorMachine> | undefined;
  private stopped: Promise<void> | undefined;
  private toolsCache: Tool[] | undefined;
  private toolIndex = new Map<string, { server: string; tool: Tool }>();
  private listsGeneration = 0;

  /** Loads `{ "mcpServers": { ... } }` from a file (or takes the object) and builds a Switchboard. */
  static async fromConfig(source: string | ConfigInput, options: FromConfigOptions = {}): Promise<Switchboard> {
    const config = await loadConfig(source, options);
    return new Switchboard(config, options);
  }

  constructor(init: SwitchboardInit | SwitchboardConfig, extra: Omit<SwitchboardInit, "servers" | "separator"> = {}) {
    super();
    const settings = { ...extra, ...("options" in init ? {} : init) } as Omit<SwitchboardInit, "servers">;
    const config = "options" in init ? init : normalise(init);
    this.separator = config.options.separator;
    this.hooks = settings.hooks ?? {};
    this.whileRestarting = settings.whileRestarting ?? "fallback";
    this.startTimeoutMs = settings.startTimeoutMs ?? 30_000;
    const codeEntries = "options" in init ? {} : init.servers;
    for (const [name, entry] of Object.entries(config.servers)) {
      const code = codeEntries[name];
      const runnable: RunnableEntry = { ...entry, transport: code?.transport, client: code?.client };
      this.runtimes.set(name, new ServerRuntime(runnable, settings.client ?? {}, this.runtimeHooks));
    }
  }

  // ---- lifecycle -------------------------------------------------------------------------------------

  /** Starts every enabled server in parallel; resolves when each is up or down (bounded by startTimeoutMs). */
  async start(): Promise<void> {
    if (this.supervisor) return this.settledStart();
    const children: ChildSpec[] = [];
    for (const runtime of this.runtimes.values()) {
      if (runtime.state === "disabled") continue;
      children.push({ name: runtime.name, work: runtime.work, restart: runtime.entry.restart });
    }
    const supervisor = createActor(supervisorMachine, { input: { children } });
    supervisor.on("*", (event) => this.onChildEvent(event as ChildEmitted));
    this.supervisor = supervisor;
    supervisor.start();
    return this.settledStart();
  }

  private async settledStart(): Promise<void> {
    const pending = [...this.runtimes.values()].filter((r) => r.state === "starting" || r.state === "restarting");
    if (pending.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(pending.map((r) => r.whenUp(this.startTimeoutMs).catch(() => undefined))),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.startTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Stops every server: closes clients (stdio: ends processes), cancels timers; pending calls settle. */
  stop(): Promise<void> {
    if (this.stopped) return this.stopped;
    const supervisor = this.supervisor;
    this.stopped = (async () => {
      if (supervisor) {
        const done = new Promise<void>((resolve) => supervisor.subscribe({ complete: resolve, error: () => resolve() }));
        supervisor.send({ type: "STOP" });
        await done;
      }
      for (const runtime of this.runtimes.values()) if (runtime.state !== "disabled") runtime.markStopped();
      this.removeAllListeners();
    })();
    return this.stopped;
  }

  /** Restarts a server now, including one that is `down` (its restart limits start afresh). */
  restart(name: string): void {
    this.runtime(name).breaker.reset();
    this.supervisor?.send({ type: "RESTART", name });
  }

  // ---- facts -----------------------------------------------------------------------------------------

  /** The live client of a server, or undefined while it is not up. */
  client(name: string): McpClient | undefined {
    const runtime = this.runtimes.get(name);
    return runtime?.state === "up" ? runtime.client : undefined;
  }

  get serverNames(): string[] {
    return [...this.runtimes.keys()];
  }

  status(): Record<string, ServerStatus> {
    const status: Record<string, ServerStatus> = {};
    for (const [name, runtime] of this.runtimes) {
      status[name] = {
        state: runtime.state,
        restarts: runtime.restarts,
        lastError: runtime.lastError?.message,
        downReason: runtime.downReason,
        inFlight: runtime.limiter.pending,
        queued: runtime.limiter.size,
        circuit: runtime.breaker.state,
        protocolVersion: runtime.client?.protocolVersion,
        fallbacks: runtime.entry.fallbacks,
      };
    }
    return status;
  }

  // ---- tools -----------------------------------------------------------------------------------------

  /** Every exposed tool of every server, names qualified (`server__tool`). Cached until a list changes. */
  async listTools(): Promise<Tool[]> {
    if (this.toolsCache) return this.toolsCache;
    const generation = this.listsGeneration;
    const perServer = await Promise.all([...this.runtimes.values()].map((runtime) => this.toolsOf(runtime)));
    const tools: Tool[] = [];
    const index = new Map<string, { server: string; tool: Tool }>();
    for (const [runtime, list] of perServer) {
      for (const tool of applyToolFilter(list, runtime.entry.tools)) {
        const name = qualify(runtime.name, tool.name, this.separator);
        tools.push({ ...tool, name });
        index.set(name, { server: runtime.name, tool });
      }
    }
    if (generation === this.listsGeneration) {
      this.toolsCache = tools;
      this.toolIndex = index;
    }
    return tools;
  }

  private async toolsOf(runtime: ServerRuntime): Promise<[ServerRuntime, Tool[]]> {
    const client = runtime.state === "up" ? runtime.client : undefined;
    if (client && client.serverCapabilities?.tools) {
      try {
        runtime.tools = await client.listTools();
      } catch (error) {
        this.emit("error", { server: runtime.name, error: error as Error });
      }
    }
    return [runtime, runtime.state === "disabled" ? [] : (runtime.tools ?? [])];
  }

  /** Calls a tool by its qualified name, on its server or, where safe, on a fallback. */
  async callTool(name: string, args?: Record<string, unknown>, options: BoardCallOptions = {}): Promise<CallToolResult> {
    const { runtime, tool, toolName } = this.resolveTool(name);
    const idempotent = isIdempotentTool(tool, options.idempotent);
    return this.routed("tools/call", name, args, runtime, idempotent, options, (client) => client.callTool(toolName, args, options), tool, toolName);
  }

  private resolveTool(name: string): { runtime: ServerRuntime; tool: Tool | undefined; toolName: string } {
    const known = this.toolIndex.get(name);
    const parsed = known ? { server: known.server, tool: known.tool.name } : parseQualified(name, this.separator, this.runtimes);
    if (!parsed) {
      throw new ProtocolError(`Unknown tool "${name}": expected "<server>${this.separator}<tool>" with one of the servers ${[...this.runtimes.keys()].join(", ")}`, -32602);
    }
    const runtime = this.runtime(parsed.server);
    const tool = known?.tool ?? runtime.tools?.find((t) => t.name === parsed.tool);
    if (!isToolExposed(tool ?? { name: parsed.tool }, runtime.entry.tools)) {
      throw new ProtocolError(`Tool "${name}" is not exposed: server "${runtime.name}" filters it out (tools.only / tools.except)`, -32602);
    }
    return { runtime, tool, toolName: parsed.tool };
  }

  // ---- resources and prompts ---------------------------------------------------------------------------

  /** Every server's resources, each tagged with its `server`. */
  async listResources(): Promise<Array<Resource & { server: string }>> {
    const lists = await Promise.all(
      [...this.runtimes.values()].map(async (runtime) => {
        const client = runtime.state === "up" ? runtime.client : undefined;
        if (!client?.serverCapabilities?.resources) return [];
        try {
          return (await client.listResources()).map((resource) => ({ ...resource, server: runtime.name }));
        } catch (error) {
          this.emit("error", { server: runtime.name, error: error as Error });
          return [];
        }
      }),
    );
    const all = lists.flat();
    for (const resource of all) if (!this.resourceOwners.has(resource.uri)) this.resourceOwners.set(resource.uri, resource.server);
    return all;
  }
  private readonly resourceOwners = new Map<string, string>();

  /** Reads a resource from the server that listed it (or `options.server`). Reads are safe to retry elsewhere. */
  async readResource(uri: string, options: RequestOptions & { server?: string } = {}): Promise<ReadResourceResult> {
    const owner = options.server ?? this.resourceOwners.get(uri);
    if (owner === undefined) {
      throw new ConfigError(`no server is known to have resource ${uri}: call listResources() first or pass { server }`);
    }
    return this.routed("resources/read", uri, { uri }, this.runtime(owner), true, options, (client) => client.readResource(uri, options));
  }

  /** Every server's prompts, names qualified like tools. */
  async listPrompts(): Promise<Prompt[]> {
    const lists = await Promise.all(
      [...this.runtimes.values()].map(async (runtime) => {
        const client = runtime.state === "up" ? runtime.client : undefined;
        if (!client?.serverCapabilities?.prompts) return [];
        try {
          return (await client.listPrompts()).map((prompt) => ({ ...prompt, name: qualify(runtime.name, prompt.name, this.separator) }));
        } catch (error) {
          this.emit("error", { server: runtime.name, error: error as Error });
          return [];
        }
      }),
    );
    return lists.flat();
  }

  async getPrompt(name: string, args?: Record<string, string>, options: RequestOptions = {}): Promise<GetPromptResult> {
    const parsed = parseQualified(name, this.separator, this.runtimes);
    if (!parsed) throw new ProtocolError(`Unknown prompt "${name}": expected "<server>${this.separator}<prompt>"`, -32602);
    return this.routed("prompts/get", name, args, this.runtime(parsed.server), true, options, (client) => client.getPrompt(parsed.tool, args, options));
  }

  // ---- plumbing ------------------------------------------------------------------------------------------

  private async routed<T>(
    method: string,
    name: string,
    args: unknown,
    runtime: ServerRuntime,
    idempotent: boolean,
    options: RequestOptions,
    call: (client: McpClient) => Promise<T>,
    tool?: Tool,
    toolName?: string,
  ): Promise<T> {
    const hooks = this.hooks;
    const context: CallContext = { method, name, server: undefined, args, startedAt: Date.now(), attempts: [] };
    const report = (error: Error) => this.emit("error", { error: new Error(`A Switchboard hook threw: ${error.message}`, { cause: error }) });
    if (hooks.before && (await applyBefore(hooks.before, context, report)) && toolName) call = (client) => client.callTool(toolName, context.args as Record<string, unknown>, options) as Promise<T>;
    const refusal = hooks.approve && toolName ? await refusalOf(hooks.approve, { server: runtime.name, tool: toolName, name, args: context.args as Record<string, unknown>, annotations: tool?.annotations }) : undefined;
    if (refusal !== undefined) return refusedResult(refusal) as T;
    try {
      const result = await route(runtime, (n) => this.runtimes.get(n), call, {
        name,
        idempotent,
        timeoutMs: options.timeoutMs ?? runtime.entry.requestTimeoutMs,
        signal: options.signal,
        whileRestarting: this.whileRestarting,
        attempts: context.attempts,
        onFallback: (from, to, reason, error) => this.emit("fallback", { name, from, to, reason, error }),
      });
      context.server = context.attempts[context.attempts.length - 1];
      return hooks.after === undefined ? result : await applyAfter(hooks.after, context, result, report);
    } catch (error) {
      context.server = context.attempts[context.attempts.length - 1];
      runHook(report, this.hooks.error && (() => this.hooks.error!(context, error as Error)));
      throw error;
    }
  }

  private runtime(name: string): ServerRuntime {
    const runtime = this.runtimes.get(name);
    if (!runtime) throw new ConfigError(`unknown server "${name}"; known: ${[...this.runtimes.keys()].join(", ")}`);
    return runtime;
  }

  private invalidateLists(server: string): void {
    this.listsGeneration++;
    this.toolsCache = undefined;
    this.emit("listsChanged", { server });
  }

  private readonly runtimeHooks = {
    listsChanged: (server: string) => this.invalidateLists(server),
    clientEvent: (server: string, event: "log" | "stderr" | "error", payload: unknown) => {
      if (event === "log") this.emit("log", { server, params: payload as LogParams });
      else if (event === "stderr") this.emit("stderr", { server, text: payload as string });
      else this.emit("error", { server, error: payload as Error });
    },
    circuit: (server: string, change: { from: "closed" | "open" | "half-open"; to: "closed" | "open" | "half-open"; reason: string }) =>
      this.emit("circuit", { server, ...change }),
  };

  private onChildEvent(event: ChildEmitted): void {
    const runtime = this.runtimes.get(event.name);
    if (!runtime) return;
    switch (event.type) {
      case "child.up":
        runtime.markUp(event.restarts);
        this.invalidateLists(event.name);
        this.emit("up", { server: event.name, restarts: event.restarts });
        break;
      case "child.exit":
        this.emit("exit", { server: event.name, error: event.error });
        break;
      case "child.restart":
        runtime.markRestarting(event.error, event.attempt);
        this.emit("restart", { server: event.name, attempt: event.attempt, delayMs: event.delayMs, error: event.error });
        break;
      case "child.down":
        runtime.markDown(event.reason, event.error);
        this.invalidateLists(event.name);
        this.emit("down", { server: event.name, reason: event.reason, error: event.error });
        break;
      case "child.stopped":
        runtime.markStopped();
        break;
    }
  }
}

/** Code entries may carry a transport factory instead of command/url; validation sees a stand-in. */
function normalise(init: SwitchboardInit): SwitchboardConfig {
  const servers: Record<string, ServerEntryInput> = {};
  for (const [name, entry] of Object.entries(init.servers)) {
    const { transport, client, ...rest } = entry;
    if (transport !== undefined && typeof transport !== "function") {
      throw new ConfigError("expected a function that returns a Transport", { server: name, field: "transport" });
    }
    // A transport factory replaces the target: validate the rest of the entry as if it were stdio.
    servers[name] = transport && rest.command === undefined && rest.url === undefined ? { ...rest, command: "(transport factory)" } : rest;
  }
  const options: LoadConfigOptions = { file: "new Switchboard()" };
  return parseConfig({ servers, ...(init.separator !== undefined ? { separator: init.separator } : {}) }, options);
}
