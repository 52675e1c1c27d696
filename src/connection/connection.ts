/**
 * One MCP connection: the XState lifecycle actor and the plain objects that do the work around it.
 *
 * The actor decides *when* (connecting, negotiating, ready, closing); the rest does *what*. Requests
 * leave through `Outbound` (outbound.ts) directly while the actor is `ready`, and wait in a `ReadyGate`
 * (ready-gate.ts) before; what the server sends goes through `Inbound` (inbound.ts); the negotiated
 * era's dialect (eras/) shapes both through a private `Wire`. The actor's state is mirrored in a plain
 * field, so the hot path pays one string comparison for the readiness check.
 *
 * Internal: users get an `McpClient` (src/client/) from `connect()`.
 */
import { EventEmitter } from "eventemitter3";
import { createActor, type Actor } from "xstate";
import { ConnectionClosedError, McpError, RequestCancelledError, TransportError, type SessionExpiredError } from "../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/messages.js";
import type { SendOptions, Transport, TransportSink } from "../transports/transport.js";
import { asError } from "../util/guards.js";
import { VERSION } from "../util/version.js";
import type {
  Dialect,
  EraRules,
  Era,
  Implementation,
  Negotiated,
  NegotiationSettings,
  Params,
  PriorVerdict,
  ProtocolMode,
  Result,
  ServerRequestHandler,
  Wire,
} from "./eras/dialect.js";
import type { ListenFilter, ListenOptions, Subscription } from "./eras/listen.js";
import { negotiate, rulesWhileNegotiating } from "./eras/negotiate.js";
import type { ConnectionEvents } from "./events.js";
import { Inbound, methodNotFound, type InboundHost } from "./inbound.js";
import { sessionFactsOf, type ConnectionObserver, type Instrumentation } from "./instrumentation.js";
import { connectionActorHost, connectionMachine, type ConnectionMachineWork, type ConnectionState } from "./machine.js";
import { Outbound, type OutboundHost } from "./outbound.js";
import { ReadyGate } from "./ready-gate.js";
import type { RequestOptions } from "./request-options.js";
import { RequestTable, type PendingRequest, type RequestTableHooks } from "./request-table.js";

export interface ConnectionOptions {
  clientInfo?: Implementation | undefined;
  /** Client capabilities to declare. The client layer derives them from the handlers it has. */
  capabilities?: Record<string, unknown> | undefined;
  /** Default deadline per request, ms. */
  requestTimeoutMs?: number | undefined;
  /** `"auto"` (default), `"legacy"`, or a pinned protocol version. */
  protocol?: ProtocolMode | undefined;
  /** A verdict from an earlier connection to the same server: skips the era probe. */
  prior?: PriorVerdict | undefined;
  /** Answers server-to-client requests (sampling, elicitation, roots). `ping` is answered built in. */
  handleServerRequest?: ServerRequestHandler | undefined;
  /** Requests made before the connection is ready wait in a queue of at most this many. */
  maxQueuedRequests?: number | undefined;
  /** Era negotiation details: the probe's timeout, the tasks extension. */
  negotiation?: NegotiationSettings | undefined;
  /** Sees every message sent and how it ended, and the lifecycle (telemetry; see instrumentation.ts). */
  instrumentation?: Instrumentation | undefined;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_QUEUED_REQUESTS = 10_000;
const DEFAULT_CLIENT_INFO: Implementation = { name: "mcp-switchboard", version: VERSION };

export class Connection extends EventEmitter<ConnectionEvents> {
  /** Replaced only during negotiation, by the HTTP+SSE fallback. */
  transport: Transport;
  /** Mirrors the actor's state, so the hot path never asks the actor. */
  state: ConnectionState = "idle";
  negotiated: Negotiated | undefined;

  private readonly table: RequestTable;
  private readonly outbound: Outbound;
  private readonly inbound: Inbound;
  private readonly readiness: ReadyGate;
  /** What dialects and negotiation may use of this connection. */
  private readonly wire: Wire;
  private readonly actor: Actor<typeof connectionMachine>;
  private dialect: Dialect | undefined;
  /** The rules for server traffic until a dialect is negotiated. */
  private readonly negotiating: EraRules;
  private transportGone = false;
  private transportClosing: Promise<void> | undefined;
  private readonly settled: Promise<void>;
  private startError: Error | undefined;
  private readonly observer: ConnectionObserver | undefined;

  /** The capabilities this client declares (connection options' `capabilities`). */
  get clientCapabilities(): Record<string, unknown> {
    return this.wire.clientCapabilities;
  }

  constructor(transport: Transport, options: ConnectionOptions = {}) {
    super();
    this.transport = transport;
    const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const handleServerRequest = options.handleServerRequest ?? methodNotFound;
    // One object answers for the connection to all its parts (see Ports below).
    const ports = new Connection.Ports(this, options, requestTimeoutMs, handleServerRequest);
    this.table = new RequestTable(ports);
    this.readiness = new ReadyGate({ waitingFor: "the connection to become ready", limit: options.maxQueuedRequests ?? DEFAULT_MAX_QUEUED_REQUESTS });
    this.observer = options.instrumentation?.observe(sessionFactsOf(this));
    this.outbound = new Outbound(this.table, requestTimeoutMs, ports, this.observer);
    this.inbound = new Inbound(this.table, handleServerRequest, ports);
    this.wire = ports;
    this.negotiating = rulesWhileNegotiating(this.wire);
    this.actor = createActor(connectionMachine, { parent: connectionActorHost(), input: { work: ports } });
    this.settled = new Promise<void>((resolve) => {
      this.actor.subscribe({
        next: (snapshot) => this.onSnapshot(snapshot.value, snapshot.context.negotiated, snapshot.context.error),
        complete: () => resolve(),
        error: () => resolve(),
      });
    });
    this.actor.start();
  }

  /**
   * What the connection's parts call back: the wire (dialects, negotiation), the outbound and inbound
   * hosts, the request table's hooks and the machine's work. One object with methods, in the class body
   * so it reaches the connection's private parts, instead of some twenty closures per connection.
   */
  private static readonly Ports = class Ports implements Wire, OutboundHost, InboundHost, RequestTableHooks, ConnectionMachineWork {
    readonly clientInfo: Implementation;
    readonly clientCapabilities: Record<string, unknown>;

    constructor(
      private readonly connection: Connection,
      private readonly options: ConnectionOptions,
      readonly requestTimeoutMs: number,
      readonly handleServerRequest: ServerRequestHandler,
    ) {
      this.clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
      this.clientCapabilities = options.capabilities ?? {};
    }

    get transport(): Transport {
      return this.connection.transport;
    }
    roundTrip(method: string, params: Params | undefined, options?: RequestOptions, send?: SendOptions): Promise<Result> {
      return this.connection.outbound.request(method, params, options, send);
    }
    roundTripWithId(method: string, params: Params | undefined, options?: RequestOptions, send?: SendOptions): { id: JsonRpcId; result: Promise<Result> } {
      return this.connection.outbound.requestWithId(method, params, options, send);
    }
    forget(id: JsonRpcId, error: Error): void {
      this.connection.table.reject(id, error);
    }
    sendNotification(method: string, params?: Params, send?: SendOptions): Promise<void> {
      return this.connection.outbound.notify(method, params, send);
    }
    replaceTransport(next: Transport): Promise<void> {
      return this.connection.replaceTransport(next);
    }
    emit<E extends keyof ConnectionEvents>(event: E, ...args: ConnectionEvents[E]): void {
      (this.connection.emit as (event: E, ...args: ConnectionEvents[E]) => boolean)(event, ...args);
    }
    cancelServerRequest(id: JsonRpcId, reason: Error): void {
      this.connection.inbound.cancel(id, reason);
    }
    sessionExpired(error: SessionExpiredError): void {
      if (this.connection.state === "ready") this.connection.actor.send({ type: "SESSION_EXPIRED", error });
    }
    rules(): EraRules {
      return this.connection.dialect ?? this.connection.negotiating;
    }
    send(message: JsonRpcMessage): Promise<void> {
      return this.connection.transport.send(message);
    }
    cancelled(entry: PendingRequest, reason: string): void {
      this.connection.cancelSent(entry, reason);
    }
    openTransport(): Promise<void> {
      const transport = this.connection.transport;
      return transport.start(this.connection.sinkFor(transport));
    }
    negotiate(): Promise<Negotiated> {
      const { protocol, prior, negotiation } = this.options;
      return negotiate({ wire: this, mode: protocol ?? "auto", prior, settings: negotiation });
    }
    beginNewSession(error: McpError): void {
      this.connection.beginNewSession(error);
    }
    shutdown(): Promise<void> {
      return this.connection.shutdown();
    }
  };

  /** Connects and negotiates; resolves once `ready`, rejects with the reason it could not get there. */
  async start(): Promise<void> {
    if (this.state === "idle") this.actor.send({ type: "CONNECT" });
    await this.whenReady(undefined);
  }

  /** The negotiated era, once ready. */
  get era(): Era | undefined {
    return this.dialect?.era;
  }

  /** A request under the negotiated era's rules. Waits (bounded) while the connection is not ready yet. */
  request(method: string, params?: Params, options?: RequestOptions): Promise<Result> {
    if (this.state === "ready") return this.dialect!.request(method, params, options);
    return this.requestWhenReady(method, params, options);
  }

  async notify(method: string, params?: Params): Promise<void> {
    if (this.state !== "ready") await this.whenReady(undefined);
    return this.dialect!.notify(method, params);
  }

  /**
   * Opens a `subscriptions/listen` stream (2026 era); resolves once the server acknowledged it. The
   * 2025 era has no such stream (its change notifications arrive unsolicited) and rejects with
   * `MethodNotSupportedError`.
   */
  async listen(filter: ListenFilter, options?: ListenOptions): Promise<Subscription> {
    if (this.state !== "ready") await this.whenReady(undefined);
    return this.dialect!.listen(filter, options);
  }

  /** Resource update notifications for `uri`, in either era (resources/subscribe, or a listen). */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (this.state !== "ready") await this.whenReady(options?.signal);
    return this.dialect!.subscribeResource(uri, options);
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (this.state !== "ready") await this.whenReady(options?.signal);
    return this.dialect!.unsubscribeResource(uri, options);
  }

  /** The era verdict to pass as `prior` to a later connection to the same server, once ready. */
  get verdict(): PriorVerdict | undefined {
    const negotiated = this.negotiated;
    if (negotiated === undefined) return undefined;
    return negotiated.discover !== undefined ? { kind: "modern", discover: negotiated.discover } : { kind: "legacy" };
  }

  /** Closes the connection. Idempotent; every pending request settles with `ConnectionClosedError`. */
  async close(): Promise<void> {
    if (this.state !== "closed" && this.state !== "failed") this.actor.send({ type: "CLOSE" });
    await this.settled;
    if (this.transportClosing) await this.transportClosing;
  }

  /** For tests and status: pending requests, armed timers, waiting callers, in-flight server requests. */
  stats(): { pending: number; timerArmed: boolean; waiting: number; inbound: number } {
    return { pending: this.table.size, timerArmed: this.table.timerArmed, waiting: this.readiness.size, inbound: this.inbound.size };
  }

  // ---- the transport --------------------------------------------------------------------------------

  /** The sink for one transport: it goes deaf once that transport is replaced. */
  private sinkFor(transport: Transport): TransportSink {
    return {
      message: (message) => {
        if (this.transport === transport) this.inbound.dispatch(message);
      },
      error: (error) => {
        if (this.transport === transport) this.emit("error", error);
      },
      close: (error) => {
        if (this.transport === transport) this.transportClosed(error);
      },
      stderr: (text) => {
        if (this.transport === transport) this.emit("stderr", text);
      },
      sessionExpired: (error) => {
        if (this.transport === transport && this.state === "ready") this.actor.send({ type: "SESSION_EXPIRED", error });
      },
      failed: (id, error) => {
        if (this.transport === transport) this.table.reject(id, error);
      },
    };
  }

  private async replaceTransport(next: Transport): Promise<void> {
    const old = this.transport;
    this.transport = next;
    // The old transport's close reaches a sink that no longer listens (see sinkFor).
    await old.close().catch(() => {});
    await next.start(this.sinkFor(next));
  }

  private closeTransport(): Promise<void> {
    this.transportClosing ??= this.transport.close().catch((error) => {
      this.emit("error", asError(error));
    });
    return this.transportClosing;
  }

  // ---- failure paths --------------------------------------------------------------------------------

  /** A sent request timed out or its caller aborted it: tell the server, the era's way. */
  private cancelSent(entry: PendingRequest, reason: string): void {
    // Whatever the era, the transport lets go of the exchange (HTTP: the POST and its socket).
    this.transport.abandon?.(entry.id);
    if (entry.exchange !== undefined) {
      entry.exchange.abort(reason);
      return;
    }
    if (this.transportGone) return;
    (this.dialect ?? this.negotiating).cancel(entry, reason);
  }

  private transportClosed(error: McpError | undefined): void {
    if (this.transportGone) return;
    this.transportGone = true;
    // Expected, or too late to matter: we are closing, or already final (the transport is closed after a failure).
    if (this.state === "closing" || this.state === "closed" || this.state === "failed") return;
    const failure =
      error instanceof ConnectionClosedError
        ? error
        : new ConnectionClosedError(error?.message ?? "The transport closed unexpectedly", {
            cause: error,
            delivered: true,
          });
    // Settle everything now: pending callers must not wait for the machine to notice.
    this.table.rejectAll(failure);
    this.inbound.abortAll(failure);
    this.actor.send({ type: "TRANSPORT_CLOSED", error: failure });
  }

  private beginNewSession(error: McpError): void {
    this.dialect = undefined;
    this.table.rejectAllExcept(
      (entry) => this.outbound.awaitsResend(entry.id),
      (entry) =>
        new TransportError(`The server ended the session while ${entry.method} (id ${String(entry.id)}) was pending; it may or may not have run`, {
          cause: error,
          delivered: true,
        }),
    );
    this.transport.resetSession?.();
  }

  private async shutdown(): Promise<void> {
    const error = new ConnectionClosedError("The connection was closed by the client", { delivered: true });
    this.table.rejectAll(error);
    this.inbound.abortAll(error);
    this.readiness.rejectAll(error);
    this.dialect?.dispose?.("closed");
    await this.closeTransport();
  }

  // ---- lifecycle mirror -------------------------------------------------------------------------------

  private onSnapshot(state: ConnectionState, negotiated: Negotiated | undefined, error: Error | undefined): void {
    if (state === this.state) return;
    this.state = state;
    if (state === "ready") {
      this.negotiated = negotiated;
      this.dialect = negotiated!.dialect;
      this.readiness.open();
      this.outbound.resend();
      this.dialect.onReady?.();
    }
    this.observer?.stateChanged(state, state === "failed" ? error : undefined);
    this.emit("state", state);
    if (state === "failed") {
      const failure = error ?? new ConnectionClosedError("The connection failed");
      this.startError = failure;
      this.table.rejectAll(failure instanceof McpError ? failure : new ConnectionClosedError(failure.message, { cause: failure }));
      this.readiness.rejectAll(failure);
      this.inbound.abortAll(failure);
      this.dialect?.dispose?.("failed");
      void this.closeTransport();
      this.emit("close", failure);
      this.removeAllListeners();
    } else if (state === "closed") {
      this.startError = new ConnectionClosedError("The connection is closed", { delivered: false });
      this.readiness.rejectAll(this.startError);
      this.emit("close");
      this.removeAllListeners();
    }
  }

  private whenReady(signal: AbortSignal | undefined): Promise<void> {
    if (this.state === "ready") return Promise.resolve();
    if (this.startError) return Promise.reject(this.startError);
    return this.readiness.wait({ signal });
  }

  private async requestWhenReady(method: string, params: Params | undefined, options: RequestOptions | undefined): Promise<Result> {
    if (options?.waitForReady === false) {
      throw new TransportError(`Connection is ${this.state}, not ready, and the request asked not to wait`, { delivered: false });
    }
    if (options?.signal?.aborted) throw new RequestCancelledError(`Request ${method} was cancelled before it was sent`, { delivered: false });
    await this.whenReady(options?.signal);
    return this.request(method, params, options);
  }
}
