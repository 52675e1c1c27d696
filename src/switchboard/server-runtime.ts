/**
 * The live state of one server under a Switchboard, kept in plain fields so routing a call costs no
 * actor round trip: the current client, its health, its concurrency limiter and circuit breaker, and the
 * callers waiting for it to come (back) up. The server's child actor drives it through `work`.
 */
import { McpClient } from "../client/client.js";
import { createClient } from "../client/connect.js";
import type { ClientOptions } from "../client/options.js";
import type { Tool } from "../client/types.js";
import { McpError, RequestCancelledError, TransportError } from "../jsonrpc/errors.js";
import type { ChildWork } from "../supervisor/child-machine.js";
import { CircuitBreaker, type CircuitStateChange } from "../supervisor/circuit-breaker.js";
import { ConcurrencyLimiter } from "../supervisor/limiter.js";
import type { Transport } from "../transports/transport.js";
import { targetOf } from "./config.js";
import type { ServerEntry } from "./config-types.js";

export type ServerState = "starting" | "up" | "restarting" | "down" | "stopped" | "disabled";

/** A server entry as the Switchboard runs it: a config entry, or one written in code with its own transport. */
export type RunnableEntry = ServerEntry & {
  /** Code-only: builds the transport for each (re)start instead of `command`/`url`. */
  transport?: () => Transport;
  /** Code-only: client options for this server (handlers, protocol, ...). */
  client?: ClientOptions;
};

export interface RuntimeHooks {
  /** The client said its tool list changed, or the server restarted: aggregated lists are stale. */
  listsChanged(server: string): void;
  clientEvent(server: string, event: "log" | "stderr" | "error", payload: unknown): void;
  circuit(server: string, change: CircuitStateChange): void;
}

interface UpWaiter {
  resolve: (client: McpClient) => void;
  reject: (error: Error) => void;
}

export class ServerRuntime {
  readonly name: string;
  readonly entry: RunnableEntry;
  readonly limiter: ConcurrencyLimiter;
  readonly breaker: CircuitBreaker;
  client: McpClient | undefined;
  state: ServerState;
  restarts = 0;
  lastError: Error | undefined;
  downReason: string | undefined;
  /** The last tool list seen, kept across restarts so names stay routable while the server is away. */
  tools: Tool[] | undefined;
  private readonly waiters = new Set<UpWaiter>();
  private readonly baseOptions: ClientOptions;

  constructor(entry: RunnableEntry, defaults: ClientOptions, private readonly hooks: RuntimeHooks) {
    this.name = entry.name;
    this.entry = entry;
    this.state = entry.disabled ? "disabled" : "starting";
    this.baseOptions = { ...defaults, ...entry.client, requestTimeoutMs: entry.requestTimeoutMs };
    // The config file's protocol settings win over the board-wide client defaults, as requestTimeoutMs does.
    if (entry.protocol !== undefined) this.baseOptions.protocol = entry.protocol;
    if (entry.autoListen !== undefined) this.baseOptions.autoListen = entry.autoListen;
    if (entry.maxMessageBytes !== undefined) this.baseOptions.maxMessageBytes = entry.maxMessageBytes;
    this.limiter = new ConcurrencyLimiter({ server: entry.name, maxConcurrency: entry.maxConcurrency, maxQueue: entry.maxQueue });
    this.breaker = new CircuitBreaker({ ...entry.circuit, onStateChange: (change) => hooks.circuit(entry.name, change) });
  }

  /** What the child actor runs. */
  readonly work: ChildWork = {
    start: () => this.startClient(),
    watch: (exited) => {
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
    },
    stop: () => this.stopClient(),
  };

  private async startClient(): Promise<void> {
    await this.stopClient();
    const target = this.entry.transport ? this.entry.transport() : targetOf(this.entry);
    const client = createClient(target, this.baseOptions);
    client.on("toolsChanged", () => {
      this.tools = undefined;
      this.hooks.listsChanged(this.name);
    });
    client.on("resourcesChanged", () => this.hooks.listsChanged(this.name));
    client.on("promptsChanged", () => this.hooks.listsChanged(this.name));
    client.on("log", (params) => this.hooks.clientEvent(this.name, "log", params));
    client.on("stderr", (text) => this.hooks.clientEvent(this.name, "stderr", text));
    client.on("error", (error) => this.hooks.clientEvent(this.name, "error", error));
    this.client = client;
    try {
      await client.connection.start();
    } catch (error) {
      this.client = undefined;
      await client.close().catch(() => {});
      throw error;
    }
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) await client.close().catch(() => {});
  }

  // ---- state changes, driven by the supervisor's events --------------------------------------------

  markUp(restarts: number): void {
    this.state = "up";
    this.restarts = restarts;
    this.downReason = undefined;
    // A fresh process or connection: failures of the old one say nothing about it.
    this.breaker.reset();
    const client = this.client!;
    for (const waiter of this.waiters) waiter.resolve(client);
    this.waiters.clear();
  }

  markRestarting(error: Error, restarts: number): void {
    this.state = "restarting";
    this.lastError = error;
    this.restarts = restarts;
  }

  markDown(reason: string, error: Error | undefined): void {
    this.state = "down";
    this.downReason = reason;
    if (error) this.lastError = error;
    const failure = new TransportError(`server "${this.name}" is down: ${reason}${error ? ` (last error: ${error.message})` : ""}`, {
      cause: error,
      delivered: false,
      server: this.name,
    });
    for (const waiter of this.waiters) waiter.reject(failure);
    this.waiters.clear();
    this.limiter.clear(failure);
  }

  markStopped(): void {
    this.state = "stopped";
    const failure = new TransportError(`server "${this.name}" was stopped`, { delivered: false, server: this.name });
    for (const waiter of this.waiters) waiter.reject(failure);
    this.waiters.clear();
    this.limiter.clear(failure);
  }

  /** The client if the server is up; else waits for it up to `timeoutMs` (or until it goes down). */
  whenUp(timeoutMs: number, signal?: AbortSignal): Promise<McpClient> {
    if (this.state === "up" && this.client) return Promise.resolve(this.client);
    if (this.state === "down" || this.state === "stopped" || this.state === "disabled") {
      return Promise.reject(this.unavailable());
    }
    return new Promise<McpClient>((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.waiters.delete(waiter);
      };
      const waiter: UpWaiter = {
        resolve: (client) => {
          cleanup();
          resolve(client);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      };
      const onAbort = () => waiter.reject(new RequestCancelledError(`Cancelled while waiting for server "${this.name}" to come up`, { delivered: false, server: this.name }));
      const timer = setTimeout(
        () => waiter.reject(new TransportError(`server "${this.name}" did not come up within ${timeoutMs} ms (${this.state})`, { delivered: false, server: this.name, cause: this.lastError })),
        timeoutMs,
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  unavailable(): McpError {
    const why = this.state === "down" ? `down: ${this.downReason}` : this.state;
    return new TransportError(`server "${this.name}" is ${why}`, { delivered: false, server: this.name, cause: this.lastError });
  }
}
