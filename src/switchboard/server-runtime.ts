/**
 * The live state of one server under a Switchboard, kept in plain fields so routing a call costs no
 * actor round trip: the current client, its health, its concurrency limiter and circuit breaker, and the
 * callers waiting for it to come (back) up. The server's child actor drives it through `work`.
 */
import { AuthRequiredError } from "../auth/errors.js";
import { authorizationRequired } from "./auth-required.js";
import { McpClient } from "../client/client.js";
import { createClient } from "../client/connect.js";
import { checkClientOptions } from "../client/options-check.js";
import type { ClientOptions } from "../client/options.js";
import { ReadyGate } from "../connection/ready-gate.js";
import { TransportError } from "../jsonrpc/errors.js";
import type { ChildWork } from "../supervisor/child-machine.js";
import { CircuitBreaker, type CircuitState, type CircuitStateChange } from "../supervisor/circuit-breaker.js";
import { ConcurrencyLimiter } from "../supervisor/limiter.js";
import { ServerUnavailableError } from "./tool-errors.js";
import type { Transport } from "../transports/transport.js";
import { targetOf } from "./config.js";
import type { ServerEntry } from "./config-types.js";
import { definedMembers } from "../util/guards.js";
import { ServerTools, type ToolsOwner } from "./server-tools.js";
import { withServer } from "./router.js";
import type { Tool } from "../client/types.js";
import type { FleetGate, FleetListSync } from "./fleet-seam.js";
import type { ServerStatus } from "./board-options.js";
import type { CallTap } from "./observation.js";

/** `idle`: a lazy server not running (not started yet, or asleep after `idleMs`); a call wakes it. */
export type ServerState = "starting" | "up" | "restarting" | "down" | "stopped" | "disabled" | "idle";

/** A server entry as the Switchboard runs it: a config entry, or one written in code with its own transport. */
export type RunnableEntry = ServerEntry & {
  /** Code-only: builds the transport for each (re)start instead of `command`/`url`. */
  transport?: (() => Transport) | undefined;
  /** Code-only: client options for this server (handlers, protocol, ...). */
  client?: ClientOptions | undefined;
};

export interface RuntimeHooks {
  /** The client said its tool list changed, or the server restarted: aggregated lists are stale. */
  listsChanged(server: string): void;
  clientEvent(server: string, event: "log" | "stderr" | "error", payload: unknown): void;
  circuit(server: string, change: CircuitStateChange): void;
  /** The server's tools were listed (on `up`, on `list_changed`, or for `listTools()`). */
  toolsListed(runtime: ServerRuntime, tools: readonly Tool[], previous: readonly Tool[] | undefined): void;
  /** The board's catalog (board-catalog.ts): its snapshot follows the listings; it wakes lazy servers. */
  catalog(): { listed(runtime: ServerRuntime, tools: readonly Tool[]): void; wake(runtime: ServerRuntime): void };
}

export class ServerRuntime implements ToolsOwner, ChildWork {
  readonly name: string;
  readonly entry: RunnableEntry;
  readonly limiter: ConcurrencyLimiter;
  /** The fleet's permits, pause and breaker decision for this server (board-fleet.ts); undefined without. */
  fleetGate: FleetGate | undefined;
  /** The fleet's list sharing for this server; undefined without a fleet. */
  fleetLists: FleetListSync | undefined;
  /** Called once when the server is stopped for good (the board leaves its fleet after the last). */
  onStopped: (() => void) | undefined;
  /** Made when first needed (a failure, the router): a server that never fails never has one. */
  private circuitBreaker: CircuitBreaker | undefined;
  client: McpClient | undefined;
  state: ServerState;
  restarts = 0;
  lastError: Error | undefined;
  downReason: string | undefined;
  /** Its tools: listed on every `up` and `list_changed`, kept across restarts (server-tools.ts). */
  readonly tools: ServerTools;
  /** Bumped by every stop, so a start that a stop overtook does not leave a client running. */
  private epoch = 0;
  /** Clients still closing (stdio: processes still ending); made by the first close. */
  private closing: Set<Promise<void>> | undefined;
  /** Calls waiting for the server to come (back) up; made for the first. */
  private waiters: ReadyGate<McpClient> | undefined;
  /** It has been up at least once: one that never was is failing at start, and is not waited for while it restarts. */
  private cameUp = false;
  /** What each client of this server is made with (principals.ts makes its clients with them too). */
  readonly baseOptions: ClientOptions;

  constructor(
    entry: RunnableEntry,
    defaults: ClientOptions,
    private readonly hooks: RuntimeHooks,
  ) {
    this.name = entry.name;
    this.entry = entry;
    // Wrong option types fail here, at construction, naming the field (not at the first start).
    checkClientOptions(defaults, "client.");
    checkClientOptions(entry.client, "client.", entry.name);
    this.state = entry.disabled ? "disabled" : entry.lazy === true ? "idle" : "starting";
    // A variable its config needs is not set: down from the start, with the reason (never started).
    if (entry.configError !== undefined) [this.state, this.downReason, this.lastError] = ["down", entry.configError.message, entry.configError];
    // definedMembers: a server's `{ onSampling: undefined }` must not hide the board-wide handler.
    this.baseOptions = { ...defaults, ...definedMembers(entry.client), requestTimeoutMs: entry.requestTimeoutMs };
    // The handshake is bounded by the start deadline, not by the calls' timeout (a short --timeout must not fail a slow start).
    this.baseOptions.handshakeTimeoutMs ??= entry.startTimeoutMs;
    // The config file's protocol settings win over the board-wide client defaults, as requestTimeoutMs does.
    if (entry.protocol !== undefined) this.baseOptions.protocol = entry.protocol;
    if (entry.autoListen !== undefined) this.baseOptions.autoListen = entry.autoListen;
    if (entry.maxMessageBytes !== undefined) this.baseOptions.maxMessageBytes = entry.maxMessageBytes;
    this.limiter = new ConcurrencyLimiter({ server: entry.name, maxConcurrency: entry.maxConcurrency, maxQueue: entry.maxQueue });
    this.tools = new ServerTools(this);
  }

  get breaker(): CircuitBreaker {
    return (this.circuitBreaker ??= new CircuitBreaker({ ...this.entry.circuit, onStateChange: (change) => this.hooks.circuit(this.name, change) }));
  }

  /** The circuit's state, without making a breaker for it. */
  get circuit(): CircuitState {
    return this.circuitBreaker?.state ?? "closed";
  }

  private get circuitClosed(): boolean {
    return this.circuitBreaker === undefined || this.circuitBreaker.closed;
  }

  /** Closes the circuit (an operator's restart). */
  resetCircuit(): void {
    this.circuitBreaker?.reset();
  }

  status(): ServerStatus {
    const fleet = this.fleetGate?.state(); // calls waiting for the fleet are not in flight; its circuit wins
    return {
      state: this.state,
      restarts: this.restarts,
      lastError: this.lastError?.message,
      downReason: this.downReason,
      inFlight: Math.max(0, this.limiter.pending - (fleet?.waiting ?? 0)),
      queued: this.limiter.size,
      waiting: fleet?.waiting ?? 0,
      paused: fleet?.paused ?? false,
      fleetLimit: this.entry.fleet?.maxConcurrency,
      circuit: fleet?.circuit ?? this.circuit,
      protocolVersion: this.client?.protocolVersion,
      fallbacks: this.entry.fallbacks,
    };
  }

  // ---- the direct path ----------------------------------------------------------------------------

  /**
   * The client, when a call may go straight to it with nothing to decide: the server is up, has no
   * fallbacks, no concurrency limit and a closed circuit, the call is not cancelled already, and the
   * fleet (if any) has a permit for it at once. Otherwise undefined, and the call takes the router (router.ts).
   */
  directClient(signal: AbortSignal | undefined): McpClient | undefined {
    if (this.state !== "up" || this.entry.fallbacks.length !== 0 || !this.limiter.unlimited || !this.circuitClosed || signal?.aborted) return undefined;
    if (this.fleetGate !== undefined && !this.fleetGate.tryAcquire()) return undefined;
    return this.client;
  }

  /**
   * Accounts for a call sent on `directClient()` as the router would (the limiter's count, the breaker's
   * outcome, the server named on the error) with one reaction on the client's promise and no closure per
   * call; an observer's tap wraps that reaction's handlers instead of adding its own (observation.ts).
   */
  direct<T>(call: Promise<T>, tap?: CallTap, name = "", args?: Record<string, unknown>): Promise<T> {
    this.limiter.enter();
    const ok = (this.directSucceeded ??= this.succeeded.bind(this)) as (result: T) => T;
    const failed = (this.directFailed ??= this.failed.bind(this));
    if (tap === undefined) return call.then(ok, failed);
    const watched = tap.watch(name, args, ok, failed);
    return call.then(watched.ok, watched.failed);
  }

  private directSucceeded: (<T>(result: T) => T) | undefined;
  private directFailed: ((error: unknown) => never) | undefined;

  private succeeded<T>(result: T): T {
    this.limiter.leave();
    this.circuitBreaker?.onSuccess();
    this.fleetGate?.finished(undefined);
    return result;
  }

  private failed(error: unknown): never {
    this.limiter.leave();
    this.breaker.onFailure(error);
    this.fleetGate?.finished(error);
    throw withServer(error, this.name);
  }

  /** Runs a routed call under this server's limits: its own limiter, then the fleet's permit (waited for until `deadline`) when it has a gate. */
  runLimited<T>(fn: () => Promise<T>, signal: AbortSignal | undefined, deadline?: number): Promise<T> {
    const gate = this.fleetGate;
    if (gate === undefined) return this.limiter.run(fn, { signal });
    return this.limiter.run(
      async () => {
        const release = await gate.acquire(signal, deadline);
        try {
          const result = await fn();
          gate.report(undefined);
          return result;
        } catch (error) {
          gate.report(error);
          throw error;
        } finally {
          release();
        }
      },
      { signal },
    );
  }

  // ---- what its ServerTools asks --------------------------------------------------------------------

  currentClient(): McpClient | undefined {
    return this.state === "up" ? this.client : undefined;
  }

  listingFailed(error: Error): void {
    this.hooks.clientEvent(this.name, "error", error);
  }

  toolsListed(tools: readonly Tool[], previous: readonly Tool[] | undefined): void {
    this.hooks.toolsListed(this, tools, previous);
    this.hooks.catalog().listed(this, tools);
  }

  /** The server's lists changed, here or (told by the fleet) at another member: list again. */
  relist(elsewhere = true): void {
    this.tools.changed(elsewhere);
    this.hooks.listsChanged(this.name);
  }

  // ---- what the child actor runs (ChildWork: start, watch, stop) -----------------------------------

  /** The runtime is its child actor's work itself (methods, rather than an object of three closures per server). */
  get work(): ChildWork {
    return this;
  }

  /** Watches the running client: `exited` once it closes. */
  watch(exited: (error: Error) => void): () => void {
    const client = this.client;
    if (client === undefined) {
      exited(new TransportError(`server "${this.name}": no client after start`));
      return () => {};
    }
    const onClose = (error?: Error) => {
      // Route new calls away at once; the actor's restart decision follows.
      this.state = "restarting";
      this.lastError = error ?? new TransportError(`server "${this.name}" closed`);
      exited(this.lastError);
    };
    client.on("close", onClose);
    return () => client.off("close", onClose);
  }

  /** Starts a new client; resolves once it is ready. */
  async start(): Promise<void> {
    const epoch = ++this.epoch;
    await this.closeClient();
    // A stop (or a start timeout's cleanup) that came while the old client closed: do not start.
    if (epoch !== this.epoch) throw this.overtaken();
    const target = this.entry.transport ? this.entry.transport() : targetOf(this.entry);
    const client = createClient(target, this.baseOptions);
    // Shared listeners called with this runtime as `this` (eventemitter3's context), not six closures per client.
    const events = client.connection;
    events.on("toolsChanged", ServerRuntime.onToolsChanged, this);
    events.on("resourcesChanged", ServerRuntime.onListChanged, this);
    events.on("promptsChanged", ServerRuntime.onListChanged, this);
    events.on("log", ServerRuntime.onLog, this);
    events.on("stderr", ServerRuntime.onStderr, this);
    events.on("error", ServerRuntime.onError, this);
    this.client = client;
    try {
      await client.start();
      if (epoch !== this.epoch) throw this.overtaken();
    } catch (error) {
      if (this.client === client) await this.closeClient();
      else await client.close().catch(() => {});
      throw error instanceof AuthRequiredError ? authorizationRequired(error, this.name) : error;
    }
  }

  private static onToolsChanged(this: ServerRuntime): void {
    this.fleetLists?.changed(); // first: the listing that follows must not take the fleet's copy it outdates
    this.relist(false);
  }

  private static onListChanged(this: ServerRuntime): void {
    this.hooks.listsChanged(this.name);
    this.fleetLists?.changed();
  }

  private static onLog(this: ServerRuntime, params: unknown): void {
    this.hooks.clientEvent(this.name, "log", params);
  }

  private static onStderr(this: ServerRuntime, text: string): void {
    this.hooks.clientEvent(this.name, "stderr", text);
  }

  private static onError(this: ServerRuntime, error: Error): void {
    this.hooks.clientEvent(this.name, "error", error);
  }

  /** Closes the client and waits until every client this server closed is gone (processes ended). */
  async stop(): Promise<void> {
    this.epoch++;
    await this.closeClient();
    if (this.closing !== undefined && this.closing.size > 0) await Promise.all(this.closing);
  }

  private closeClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return Promise.resolve();
    // Kept until done: a stdio server that ignores its closed stdin takes seconds to end, and a later
    // stop must not report the server stopped while its process still runs.
    const closed = client.close().catch(() => {});
    const closing = (this.closing ??= new Set());
    closing.add(closed);
    void closed.then(() => closing.delete(closed));
    return closed;
  }

  private overtaken(): TransportError {
    return new TransportError(`server "${this.name}": stopped while starting`, { delivered: false, server: this.name });
  }

  // ---- state changes, driven by the supervisor's events --------------------------------------------

  /** Every start so far failed: calls fail at once while it restarts (router.ts), naming its last error. */
  get neverUp(): boolean {
    return !this.cameUp;
  }

  markUp(restarts: number): void {
    this.state = "up";
    this.cameUp = true;
    this.restarts = restarts;
    this.downReason = undefined;
    // A fresh process or connection: failures of the old one say nothing about it.
    this.circuitBreaker?.reset();
    // Its tools may differ from the last process's: list them, in the background.
    this.tools.changed();
    this.waiters?.open(this.client!);
  }

  markRestarting(error: Error, restarts: number): void {
    this.state = "restarting";
    this.lastError = error;
    this.restarts = restarts;
    // A first start failed: the calls waiting for it hear why now, not after the whole restart budget.
    if (!this.cameUp && (this.waiters?.size ?? 0) > 0) this.waiters!.rejectAll(this.unavailable());
  }

  markDown(reason: string, error: Error | undefined): void {
    this.state = "down";
    this.downReason = reason;
    if (error) this.lastError = error;
    if (!this.anyoneWaits()) return; // an error costs a stack trace: made only for someone to get it
    const failure = this.unavailable();
    this.waiters?.rejectAll(failure);
    this.limiter.clear(failure);
  }

  markStopped(): void {
    this.state = "stopped";
    const stopped = this.onStopped;
    this.onStopped = undefined;
    stopped?.();
    if (!this.anyoneWaits()) return;
    const failure = new TransportError(`server "${this.name}" was stopped`, { delivered: false, server: this.name });
    this.waiters?.rejectAll(failure);
    this.limiter.clear(failure);
  }

  /** Calls wait for it to come up or for a slot (a lazy server is kept awake for them: board-catalog.ts). */
  anyoneWaits(): boolean {
    return (this.waiters?.size ?? 0) > 0 || this.limiter.size > 0;
  }

  /** The client if the server is up; else waits for it up to `timeoutMs` (or until it goes down). */
  whenUp(timeoutMs: number, signal?: AbortSignal): Promise<McpClient> {
    if (this.state === "up" && this.client) return Promise.resolve(this.client);
    if (this.state === "idle") this.hooks.catalog().wake(this);
    if (this.state === "down" || this.state === "stopped" || this.state === "disabled") {
      return Promise.reject(this.unavailable());
    }
    const error = () => this.unavailable(undefined, `did not come up within ${timeoutMs} ms (${this.state})`);
    // Bounded like the limiter's queue: a call storm for a server that is away must fail fast, not pile
    // up until each call's deadline.
    this.waiters ??= new ReadyGate({ waitingFor: `server "${this.name}" to come up`, server: this.name, limit: this.entry.maxQueue });
    return this.waiters.wait({ signal, timeout: { ms: timeoutMs, error } });
  }

  /** Why a call (for `tool`, when named) cannot run here now: the server, its state and its last error. */
  unavailable(tool?: string, why?: string): ServerUnavailableError {
    const { name: server, state, downReason: reason, lastError } = this;
    return new ServerUnavailableError({ server, state, reason, lastError, tool, why });
  }
}
