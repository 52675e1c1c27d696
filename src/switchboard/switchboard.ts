/**
 * Switchboard: many MCP servers by name, each supervised, behind one namespaced API. Calls are routed
 * on plain per-server state (ServerRuntime); the supervisor actor owns the servers' lifecycles.
 */
import { EventEmitter } from "eventemitter3";
import { createActor, type Actor } from "xstate";
import type { CallToolOptions, McpClient } from "../client/client.js";
import type { CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool } from "../client/types.js";
import type { RequestOptions } from "../connection/request-options.js";
import type { LogParams } from "../connection/events.js";
import { ConfigError, ProtocolError, type McpError } from "../jsonrpc/errors.js";
import type { ChildEmitted, ChildSpec } from "../supervisor/child-machine.js";
import { isIdempotentTool } from "../supervisor/routing.js";
import { supervisorMachine } from "../supervisor/supervisor-machine.js";
import { definedMembers } from "../util/guards.js";
import {
  DEFAULT_START_TIMEOUT_MS,
  clientDefaults,
  normalise,
  type BoardCallOptions,
  type FromConfigOptions,
  type ServerStatus,
  type SwitchboardInit,
} from "./board-options.js";
import { loadConfig } from "./config.js";
import type { ConfigInput, SwitchboardConfig } from "./config-types.js";
import type { SwitchboardEvents } from "./events.js";
import type { SwitchboardHooks } from "./hooks.js";
import { applyToolFilter, parseQualified, qualify } from "./namespacing.js";
import type { IdempotenceLookup, WhileRestarting } from "./router.js";
import { ServerRuntime, type RunnableEntry } from "./server-runtime.js";
import { lookUpTool } from "./tool-lookup.js";
import { ToolIndex } from "./tool-index.js";
import { StartWait } from "./start-wait.js";
import { routedCall, type RoutingContext } from "./board-route.js";
import { joinFleet, withConfigFleet, withFleetStore } from "./board-fleet.js";
import { BoardCatalog, type ToolSearchOptions, type ToolSearchResults } from "./board-catalog.js";
import { startObserver, type BoardObserver, type CallTap, type ObserveOptions } from "./observation.js";
import { fromEachServer } from "./board-lists.js";
import { ToolPins } from "./tool-pins.js";
import { missingTool, resolveTool, unlistedCall, type ToolNames } from "./tool-resolve.js";
import { checkMaxResultChars } from "./result-budget.js";
import type { UrlPolicy } from "../auth/url-policy.js";
import { checkPrincipal, PrincipalClients } from "./principals.js";
import { principalView, type PrincipalView } from "./principal-view.js";

export type { BoardCallOptions, ServerInit, ServerStatus, SwitchboardInit } from "./board-options.js";

export class Switchboard extends EventEmitter<SwitchboardEvents> {
  readonly separator: string;
  private readonly runtimes = new Map<string, ServerRuntime>();
  private readonly hooks: SwitchboardHooks;
  private readonly whileRestarting: WhileRestarting;
  private readonly startTimeoutMs: number;
  private supervisor: Actor<typeof supervisorMachine> | undefined;
  private stopped: Promise<void> | undefined;
  private toolsCache: Tool[] | undefined;
  /** Qualified tool names to their servers, kept by the servers' listings (tool-index.ts). */
  private readonly toolIndex: ToolIndex;
  private listsGeneration = 0;
  private readonly catalog: BoardCatalog; // search, the catalog snapshot, lazy servers
  callTap: CallTap | undefined; // set by an open observer (observation.ts); unset, a call pays one field check
  private readonly pins: ToolPins | undefined;
  private readonly maxResultChars: number | undefined;
  private readonly principals: PrincipalClients;
  private readonly urlPolicy: UrlPolicy;
  private readonly names: ToolNames; // what tool-resolve.ts needs of the board
  readonly fleet: SwitchboardInit["fleet"]; // the board's fleet (also one built from mcp.json); undefined without one
  /** What routedCall (board-route.ts) needs of the board, made once. */
  private readonly routing: RoutingContext = {
    hooks: () => this.hooks,
    whileRestarting: () => this.whileRestarting,
    principals: () => this.principals,
    runtimeNamed: (name) => this.runtimes.get(name),
    toolFor: (runtime, toolName, options) => this.toolFor(runtime, toolName, options),
    emit: (type, event) => (this.emit as (type: string, event: unknown) => boolean)(type, event),
  };

  /** Loads `{ "mcpServers": { ... } }` from a file (or takes the object) and builds a Switchboard. */
  static async fromConfig(source: string | ConfigInput, options: FromConfigOptions = {}): Promise<Switchboard> {
    return new Switchboard(...(await withConfigFleet(loadConfig(source, options), options)));
  }

  constructor(init: SwitchboardInit | SwitchboardConfig, extra: Omit<SwitchboardInit, "servers" | "separator"> = {}) {
    super();
    const settings = { ...extra, ...("options" in init ? {} : definedMembers(init)) } as Omit<SwitchboardInit, "servers">;
    const config = "options" in init ? init : normalise(init);
    this.separator = config.options.separator;
    this.toolIndex = new ToolIndex(this.separator);
    this.hooks = settings.hooks ?? {};
    this.whileRestarting = settings.whileRestarting ?? "fallback";
    this.startTimeoutMs = settings.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    if (!(Number.isFinite(this.startTimeoutMs) && this.startTimeoutMs > 0)) {
      throw new ConfigError(`expected a finite number of ms > 0, found ${this.startTimeoutMs}`, { field: "startTimeoutMs" });
    }
    this.maxResultChars = checkMaxResultChars(settings.maxResultChars, "maxResultChars");
    this.principals = new PrincipalClients(settings.principals);
    if (settings.pinTools !== undefined && settings.pinTools !== false)
      this.pins = new ToolPins(
        settings.pinTools,
        (e) => this.emit("toolChanged", { ...e, name: qualify(e.server, e.tool, this.separator) }),
        (server) => this.readmit(server),
      );
    this.catalog = new BoardCatalog(this.runtimes, { ...settings, separator: this.separator }, (e) => this.onChildEvent(e), this);
    this.names = { separator: this.separator, runtimes: this.runtimes, toolIndex: this.toolIndex, pins: this.pins };
    const codeEntries = "options" in init ? {} : init.servers;
    const client = clientDefaults(settings);
    this.urlPolicy = client.urlPolicy; // its OAuth agents' sockets are closed with the board
    this.fleet = settings.fleet;
    for (const [name, entry] of Object.entries(config.servers)) {
      const code = codeEntries[name];
      const runnable: RunnableEntry = withFleetStore({ ...entry, transport: code?.transport, client: code?.client }, settings.fleet);
      runnable.startTimeoutMs ??= this.startTimeoutMs; // the runtime bounds its handshake by it
      this.runtimes.set(name, joinFleet(new ServerRuntime(runnable, client, this.runtimeHooks), settings.fleet, this));
    }
  }

  // ---- lifecycle -------------------------------------------------------------------------------------

  /**
   * Starts every enabled server in parallel; resolves when each is up or down, bounded by the start
   * timeouts. Each server's tools are listed in the background as it comes up (routing needs their
   * annotations); `listTools()` shares that listing, and a call that fails before it arrived looks the
   * tool up then.
   */
  async start(): Promise<void> {
    await this.catalog.load();
    if (this.supervisor) return this.settledStart();
    const children: ChildSpec[] = [];
    for (const runtime of this.runtimes.values()) {
      if (runtime.state === "disabled" || runtime.entry.lazy === true || runtime.entry.configError !== undefined) continue;
      children.push({ name: runtime.name, work: runtime.work, restart: runtime.entry.restart, startTimeoutMs: this.startTimeoutOf(runtime) });
    }
    const supervisor = createActor(supervisorMachine, { input: { children, relay: (event) => this.onChildEvent(event) } });
    this.supervisor = supervisor;
    supervisor.start();
    return this.settledStart();
  }

  /** Until each server that is starting is up or down, bounded by its start timeout (start-wait.ts). */
  private settledStart(): Promise<void> {
    const wait = new StartWait(this.runtimes.values(), (runtime) => this.startTimeoutOf(runtime));
    this.startWaits.add(wait);
    return wait.done.finally(() => this.startWaits.delete(wait));
  }
  private readonly startWaits = new Set<StartWait>();

  private startTimeoutOf(runtime: ServerRuntime): number {
    return runtime.entry.startTimeoutMs ?? this.startTimeoutMs;
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
      await this.catalog.stop();
      for (const runtime of this.runtimes.values()) if (runtime.state !== "disabled") runtime.markStopped();
      await Promise.all([this.principals.close(), this.urlPolicy.close()]);
      this.removeAllListeners();
    })();
    return this.stopped;
  }

  /** Restarts a server now, including one that is `down` (its restart limits start afresh). */
  restart(name: string): void {
    const runtime = this.runtime(name);
    runtime.resetCircuit();
    if (!this.catalog.restart(runtime)) this.supervisor?.send({ type: "RESTART", name });
  }

  /** Serves the live observer page on 127.0.0.1 (src/observe/); close it with the returned `close()`. */
  observe(options: ObserveOptions = {}): Promise<BoardObserver> {
    return startObserver(this, options);
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
    for (const [name, runtime] of this.runtimes) status[name] = runtime.status();
    return status;
  }

  // ---- tools -----------------------------------------------------------------------------------------

  /** Every exposed tool of every server, names qualified (`server__tool`). Cached until a list changes. */
  async listTools(): Promise<Tool[]> {
    if (this.toolsCache) return this.toolsCache;
    const generation = this.listsGeneration;
    const perServer = await Promise.all([...this.runtimes.values()].map((runtime) => this.toolsOf(runtime)));
    const tools: Tool[] = [];
    for (const [runtime, list] of perServer) {
      for (const tool of applyToolFilter(list, runtime.entry.tools))
        if (!this.pins?.isHeld(runtime.name, tool.name)) tools.push({ ...tool, name: qualify(runtime.name, tool.name, this.separator) });
    }
    if (generation === this.listsGeneration) this.toolsCache = tools;
    return tools;
  }

  /** A server's tools: the kept list while it is away, else fresh (a listing failure is an `error` event). */
  private async toolsOf(runtime: ServerRuntime): Promise<[ServerRuntime, Tool[]]> {
    if (runtime.state === "disabled") return [runtime, []];
    if (runtime.entry.lazy === true && runtime.tools.list === undefined) await this.catalog.firstListing(runtime);
    return [runtime, (await runtime.tools.refresh()) ?? []];
  }

  /** The tools that match a task best, best first, and (`unavailable`) the servers it could not see (board-catalog.ts). */
  async searchTools(query: string, options?: ToolSearchOptions): Promise<ToolSearchResults> {
    return this.catalog.search(await this.listTools(), query, options);
  }

  /** Calls a tool by its qualified name, on its server or, where safe, on a fallback. */
  callTool(name: string, args?: Record<string, unknown>, options?: BoardCallOptions): Promise<CallToolResult> {
    const known = options?.principal === undefined ? this.toolIndex.get(name) : undefined;
    const hooks = this.hooks;
    // The direct path: nothing to decide (no hooks, and directClient's conditions), so the call costs
    // one lookup and one reaction on the client's promise beyond a bare client's.
    if (known !== undefined && hooks.before === undefined && hooks.approve === undefined && hooks.after === undefined && hooks.error === undefined) {
      const client = known.runtime.directClient(options?.signal);
      if (client !== undefined) {
        let call: Promise<CallToolResult>;
        try {
          call = client.callTool(known.name, args, options);
        } catch (error) {
          call = Promise.reject(error);
        }
        // An observer's tap wraps the runtime's one reaction here; the routed path's, a reaction of its own.
        return known.runtime.direct(call, this.callTap, name, args);
      }
    }
    const routed = this.routedTool(name, args, options ?? {});
    return this.callTap === undefined ? routed : this.callTap.called(name, args, routed);
  }

  private async routedTool(name: string, args: Record<string, unknown> | undefined, options: BoardCallOptions): Promise<CallToolResult> {
    const { runtime, toolName } = resolveTool(this.names, name, options.principal !== undefined);
    // Decided at a failure, from the tool's annotations as known then (looked up if still unknown).
    const idempotent: boolean | IdempotenceLookup =
      options.idempotent ?? (async (failed, next, remainingMs) => isIdempotentTool(await lookUpTool(toolName, [runtime, failed, next], remainingMs)));
    const call = routedCall(this.routing, "tools/call", name, args, runtime, idempotent, options, this.principals.sender(toolName, args, options), toolName);
    return runtime.tools.list !== undefined || options.principal !== undefined ? call : unlistedCall(this.names, runtime, name, toolName, call);
  }

  /**
   * Why `name` cannot be called, in the words a model reads: its server is not up (a
   * ServerUnavailableError naming it, its state and last error), or no such tool (an UnknownToolError
   * with the closest of `offered`, else of the listed names). The runners and runAgent ask it for a
   * name the model was not offered.
   */
  missingTool(name: string, offered?: Iterable<string>): McpError {
    return missingTool(this.names, name, offered);
  }

  /** Accepts the changed definition of a quarantined tool (`toolChanged`); false when it was not held. */
  approveToolChange(name: string): boolean {
    const parsed = parseQualified(name, this.separator, this.runtimes);
    const runtime = parsed && this.runtimes.get(parsed.server);
    const approved = runtime?.tools.list !== undefined && this.pins?.approve(runtime.name, parsed!.tool);
    if (approved === "seen") runtime!.relist(true);
    else if (approved === true) this.readmit(runtime.name);
    return approved !== false && approved !== undefined;
  }

  /** The pins changed for `server` (an approval, a hold seen by a principal): its listing is judged again. */
  private readmit(server: string): void {
    const runtime = this.runtimes.get(server);
    if (runtime?.tools.list !== undefined) this.runtimeHooks.toolsListed(runtime, runtime.tools.list, runtime.tools.list);
    this.invalidateLists(server);
  }

  /** The board as one principal sees it: its credentials, its lists; a host for the runners and runAgent (principal-view.ts). */
  forPrincipal(principal: string): PrincipalView {
    return principalView(checkPrincipal(principal), this, () => [...this.runtimes.values()], this.principals, this.pins);
  }

  /** What the runners cut a result of `name` to on its way to a model: its server's `maxResultChars`, else the board's. */
  maxResultCharsFor(name: string): number | undefined {
    const server = this.toolIndex.get(name)?.runtime.name ?? parseQualified(name, this.separator, this.runtimes)?.server;
    return (server === undefined ? undefined : this.runtimes.get(server)?.entry.maxResultChars) ?? this.maxResultChars;
  }

  // ---- resources and prompts ---------------------------------------------------------------------------

  /** Every server's resources, each tagged with its `server`. */
  async listResources(): Promise<Array<Resource & { server: string }>> {
    const shape = (resource: Resource, server: string) => ({ ...resource, server });
    const all = await fromEachServer(this.runtimes.values(), "resources", (client) => client.listResources(), shape, this);
    for (const resource of all) if (!this.resourceOwners.has(resource.uri)) this.resourceOwners.set(resource.uri, resource.server);
    return all;
  }
  private readonly resourceOwners = new Map<string, string>();

  /** Reads a resource from the server that listed it (or `options.server`). Reads are safe to retry elsewhere. */
  async readResource(uri: string, options: RequestOptions & Pick<CallToolOptions, "handlers"> & { server?: string } = {}): Promise<ReadResourceResult> {
    const owner = options.server ?? this.resourceOwners.get(uri);
    if (owner === undefined) {
      throw new ConfigError(`no server is known to have resource ${uri}: call listResources() first or pass { server }`);
    }
    return routedCall(this.routing, "resources/read", uri, { uri }, this.runtime(owner), true, options, (client) => client.readResource(uri, options));
  }

  /** Every server's prompts, names qualified like tools. */
  async listPrompts(): Promise<Prompt[]> {
    const shape = (prompt: Prompt, server: string) => ({ ...prompt, name: qualify(server, prompt.name, this.separator) });
    return fromEachServer(this.runtimes.values(), "prompts", (client) => client.listPrompts(), shape, this);
  }

  async getPrompt(name: string, args?: Record<string, string>, options: RequestOptions & Pick<CallToolOptions, "handlers"> = {}): Promise<GetPromptResult> {
    const parsed = parseQualified(name, this.separator, this.runtimes);
    if (!parsed) throw new ProtocolError(`Unknown prompt "${name}": expected "<server>${this.separator}<prompt>"`, -32602);
    return routedCall(this.routing, "prompts/get", name, args, this.runtime(parsed.server), true, options, (client) =>
      client.getPrompt(parsed.tool, args, options),
    );
  }

  // ---- plumbing ------------------------------------------------------------------------------------------

  /** The tool as its server described it; an approval needs its annotations, so an unknown one is looked up (bounded by the call's timeout). */
  private toolFor(runtime: ServerRuntime, toolName: string, options: RequestOptions): Promise<Tool | undefined> {
    return lookUpTool(toolName, [runtime], options.timeoutMs ?? runtime.entry.requestTimeoutMs);
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
    toolsListed: (runtime: ServerRuntime, tools: readonly Tool[], previous: readonly Tool[] | undefined) =>
      this.toolIndex.replace(runtime, this.pins ? this.pins.admit(runtime.name, tools) : tools, previous),
    catalog: () => this.catalog,
  };

  private onChildEvent(event: ChildEmitted): void {
    const runtime = this.runtimes.get(event.name);
    if (!runtime) return;
    this.dispatchChildEvent(runtime, event);
    if (this.startWaits.size > 0) for (const wait of this.startWaits) wait.update(runtime);
  }

  private dispatchChildEvent(runtime: ServerRuntime, event: ChildEmitted): void {
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
