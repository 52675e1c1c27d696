/**
 * One MCP connection: the XState lifecycle actor plus the hot path around it.
 *
 * The actor decides *when* (connecting, negotiating, ready, closing); this class does *what*: it sends
 * requests through the RequestTable and the transport directly while the actor is `ready`, routes
 * inbound messages, answers server requests, and mirrors the actor's state in a plain field so the hot
 * path pays one string comparison for the readiness check.
 */
import { EventEmitter } from "eventemitter3";
import { createActor, type Actor } from "xstate";
import {
  ConnectionClosedError,
  McpError,
  OverloadError,
  ProtocolError,
  RequestCancelledError,
  SessionExpiredError,
  TransportError,
} from "../jsonrpc/errors.js";
import { IdAllocator } from "../jsonrpc/ids.js";
import type {
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
} from "../jsonrpc/messages.js";
import { SENT, type SendOptions, type Transport, type TransportSink } from "../transports/transport.js";
import type {
  Dialect,
  Implementation,
  ListKind,
  Negotiated,
  NegotiationSettings,
  Params,
  PriorVerdict,
  ProtocolMode,
  Result,
  ServerRequestHandler,
  Wire,
} from "./eras/dialect.js";
import { notificationCancelled } from "./eras/dialect.js";
import { notInEra } from "./eras/legacy.js";
import { negotiate } from "./eras/negotiate.js";
import type { ListenFilter, ListenOptions, Subscription } from "./eras/listen.js";
import type { ConnectionEvents, LogParams, ProgressParams } from "./events.js";
import { connectionMachine, type ConnectionState } from "./machine.js";
import type { RequestOptions } from "./request-options.js";
import { RequestTable, type PendingRequest } from "./request-table.js";
import { asError } from "../util/guards.js";

export interface ConnectionOptions {
  clientInfo?: Implementation;
  /** Client capabilities to declare. The client layer derives them from the handlers it has. */
  capabilities?: Record<string, unknown>;
  /** Default deadline per request, ms. */
  requestTimeoutMs?: number;
  /** `"auto"` (default), `"legacy"`, or a pinned protocol version. */
  protocol?: ProtocolMode;
  /** A verdict from an earlier connection to the same server: skips the era probe. */
  prior?: PriorVerdict;
  /** Answers server-to-client requests (sampling, elicitation, roots). `ping` is answered built in. */
  handleServerRequest?: ServerRequestHandler;
  /** Requests made before the connection is ready wait in a queue of at most this many. */
  maxQueuedRequests?: number;
  /** Era negotiation details: the probe's timeout, the tasks extension. */
  negotiation?: NegotiationSettings;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
const CHANGE_EVENTS = { tools: "toolsChanged", resources: "resourcesChanged", prompts: "promptsChanged" } as const;
const DEFAULT_CLIENT_INFO: Implementation = { name: "mcp-switchboard", version: "0.1.0" };

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

export class Connection extends EventEmitter<ConnectionEvents> implements Wire {
  /** Replaced only during negotiation, by the HTTP+SSE fallback. */
  transport: Transport;
  readonly table: RequestTable;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: Record<string, unknown>;
  readonly requestTimeoutMs: number;
  readonly handleServerRequest: ServerRequestHandler;
  /** Mirrors the actor's state, so the hot path never asks the actor. */
  state: ConnectionState = "idle";
  negotiated: Negotiated | undefined;

  private readonly actor: Actor<typeof connectionMachine>;
  private readonly ids = new IdAllocator();
  private readonly options: ConnectionOptions;
  private dialect: Dialect | undefined;
  private waiters: Waiter[] = [];
  private readonly inbound = new Map<JsonRpcId, AbortController>();
  /** Requests the server refused because it forgot the session: sent again once the new session is ready. */
  private resendOnNewSession = new Map<JsonRpcId, { message: JsonRpcRequest; send: SendOptions | undefined }>();
  private transportGone = false;
  private transportClosing: Promise<void> | undefined;
  private settled: Promise<void>;
  private startError: Error | undefined;

  constructor(transport: Transport, options: ConnectionOptions = {}) {
    super();
    this.transport = transport;
    this.options = options;
    this.clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.clientCapabilities = options.capabilities ?? {};
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.handleServerRequest = options.handleServerRequest ?? methodNotFound;
    this.table = new RequestTable({ cancelled: (entry, reason) => this.cancelSent(entry, reason) });
    this.actor = createActor(connectionMachine, {
      input: {
        table: this.table,
        work: {
          openTransport: () => this.transport.start(this.sinkFor(this.transport)),
          negotiate: () => negotiate({ wire: this, mode: this.options.protocol ?? "auto", prior: this.options.prior, settings: this.options.negotiation }),
          beginNewSession: (error) => this.beginNewSession(error),
          shutdown: () => this.shutdown(),
        },
      },
    });
    this.settled = new Promise<void>((resolve) => {
      this.actor.subscribe({
        next: (snapshot) => this.onSnapshot(snapshot.value as ConnectionState, snapshot.context.negotiated, snapshot.context.error),
        complete: () => resolve(),
        error: () => resolve(),
      });
    });
    this.actor.start();
  }

  /** Connects and negotiates; resolves once `ready`, rejects with the reason it could not get there. */
  async start(): Promise<void> {
    if (this.state === "idle") this.actor.send({ type: "CONNECT" });
    await this.whenReady(undefined);
  }

  get dialectEra(): Dialect["era"] | undefined {
    return this.dialect?.era;
  }

  /** A request under the negotiated era's rules. Waits (bounded) while the connection is not ready yet. */
  request(method: string, params?: Params, options?: RequestOptions): Promise<Result> {
    if (this.state === "ready") {
      const dialect = this.dialect!;
      if (!dialect.hasMethod(method)) return Promise.reject(notInEra(method, dialect.era, dialect.protocolVersion));
      return dialect.request(this, method, params, options);
    }
    return this.requestWhenReady(method, params, options);
  }

  async notify(method: string, params?: Params): Promise<void> {
    if (this.state !== "ready") await this.whenReady(undefined);
    return this.dialect!.notify(this, method, params);
  }

  /**
   * Opens a `subscriptions/listen` stream (2026 era); resolves once the server acknowledged it. The
   * 2025 era has no such stream (its change notifications arrive unsolicited) and rejects with
   * `MethodNotSupportedError`.
   */
  async listen(filter: ListenFilter, options?: ListenOptions): Promise<Subscription> {
    if (this.state !== "ready") await this.whenReady(undefined);
    return this.dialect!.listen(this, filter, options);
  }

  /** Resource update notifications for `uri`, in either era (resources/subscribe, or a listen). */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (this.state !== "ready") await this.whenReady(options?.signal);
    return this.dialect!.subscribeResource(this, uri, options);
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    if (this.state !== "ready") await this.whenReady(options?.signal);
    return this.dialect!.unsubscribeResource(this, uri, options);
  }

  /** The era verdict to pass as `prior` to a later connection to the same server, once ready. */
  get verdict(): PriorVerdict | undefined {
    const negotiated = this.negotiated;
    if (negotiated === undefined) return undefined;
    return negotiated.discover !== undefined ? { kind: "modern", discover: negotiated.discover } : { kind: "legacy" };
  }

  /** Closes the connection. Idempotent; every pending request settles with `ConnectionClosedError`. */
  async close(): Promise<void> {
    if (this.state === "idle") this.actor.send({ type: "CLOSE" });
    else if (this.state !== "closed" && this.state !== "failed") this.actor.send({ type: "CLOSE" });
    await this.settled;
    if (this.transportClosing) await this.transportClosing;
  }

  // ---- Wire: what dialects use ------------------------------------------------------------------

  roundTrip(method: string, params: Params | undefined, options?: RequestOptions, send?: SendOptions): Promise<Result> {
    return this.exchange(this.ids.allocate(), method, params, options, send);
  }

  roundTripWithId(method: string, params: Params | undefined, options?: RequestOptions, send?: SendOptions): { id: JsonRpcId; result: Promise<Result> } {
    const id = this.ids.allocate();
    return { id, result: this.exchange(id, method, params, options, send) };
  }

  forget(id: JsonRpcId, error: Error): void {
    this.table.reject(id, error);
  }

  async replaceTransport(next: Transport): Promise<void> {
    const old = this.transport;
    this.transport = next;
    // The old transport's close reaches a sink that no longer listens (see sinkFor).
    await old.close().catch(() => {});
    await next.start(this.sinkFor(next));
  }

  private exchange(id: JsonRpcId, method: string, params: Params | undefined, options: RequestOptions | undefined, send: SendOptions | undefined): Promise<Result> {
    if (options !== undefined && (options.onProgress !== undefined || options.resetTimeoutOnProgress)) {
      params = withProgressToken(params, id);
    }
    const exchange = this.transport.cancelsByAbort?.() ? new AbortController() : undefined;
    const promise = this.table.add(id, method, options, this.requestTimeoutMs, exchange);
    if (!this.table.has(id)) return promise; // already aborted: nothing to send
    const message: JsonRpcRequest = params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
    const sendOptions = exchange ? { ...send, signal: exchange.signal } : send;
    const sent = this.transport.send(message, sendOptions);
    if (sent !== SENT) sent.then(undefined, (error) => this.sendFailed(id, error, message, sendOptions));
    return promise;
  }

  sendNotification(method: string, params?: Params, send?: SendOptions): Promise<void> {
    const message: JsonRpcNotification = params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    return this.transport.send(message, send);
  }

  warn(error: Error): void {
    this.emit("error", error);
  }

  listChanged(kind: ListKind): void {
    this.emit(CHANGE_EVENTS[kind]);
  }

  // ---- inbound ------------------------------------------------------------------------------------

  /** The sink for one transport: it goes deaf once that transport is replaced. */
  private sinkFor(transport: Transport): TransportSink {
    return {
      message: (message) => {
        if (this.transport === transport) this.dispatch(message);
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

  private dispatch(message: JsonRpcMessage): void {
    if ("method" in message) {
      if ("id" in message) this.onServerRequest(message);
      else this.onNotification(message);
      return;
    }
    if (!this.table.settle(message as JsonRpcResponse)) this.onUnmatchedResponse(message as JsonRpcResponse);
  }

  private onUnmatchedResponse(response: JsonRpcResponse): void {
    if ("error" in response && response.id === null) {
      this.emit("error", new ProtocolError(`Server reported an error not tied to a request: ${response.error.message}`, response.error.code, response.error.data));
      return;
    }
    this.emit("error", new McpError(`Response for unknown request id ${JSON.stringify(response.id)} (late after a timeout or cancellation, or never sent); ignored`));
  }

  private onNotification(message: JsonRpcNotification): void {
    const params = message.params;
    switch (message.method) {
      case "notifications/progress": {
        const progress = params as unknown as ProgressParams;
        this.table.progress(progress?.progressToken, progress);
        this.emit("progress", progress);
        break;
      }
      case "notifications/message":
        this.emit("log", params as unknown as LogParams);
        break;
      case "notifications/tools/list_changed":
        this.emit("toolsChanged");
        break;
      case "notifications/resources/list_changed":
        this.emit("resourcesChanged");
        break;
      case "notifications/prompts/list_changed":
        this.emit("promptsChanged");
        break;
      case "notifications/resources/updated":
        this.emit("resourceUpdated", params as { uri: string });
        break;
      case "notifications/cancelled": {
        const requestId = (params as { requestId?: JsonRpcId } | undefined)?.requestId;
        if (requestId !== undefined) {
          this.inbound.get(requestId)?.abort(new RequestCancelledError(`The server cancelled its request ${String(requestId)}`));
          this.emit("cancelled", params as { requestId: JsonRpcId });
        }
        break;
      }
    }
    this.emit("notification", { method: message.method, params });
    this.dialect?.onNotification?.(message.method, params);
  }

  private onServerRequest(request: JsonRpcRequest): void {
    if (this.dialect !== undefined && !this.dialect.acceptsServerRequests) {
      this.emit("error", new McpError(`Dropped a ${request.method} request from the server: protocol ${this.dialect.protocolVersion} has no server-to-client requests`));
      return;
    }
    if (request.method === "ping") {
      this.respond(request.id, {});
      return;
    }
    const controller = new AbortController();
    this.inbound.set(request.id, controller);
    let handled: Promise<Result>;
    try {
      handled = this.handleServerRequest(request.method, request.params ?? {}, controller.signal);
    } catch (error) {
      handled = Promise.reject(error);
    }
    handled.then(
      (result) => {
        this.inbound.delete(request.id);
        if (!controller.signal.aborted) this.respond(request.id, result);
      },
      (error: unknown) => {
        this.inbound.delete(request.id);
        if (controller.signal.aborted) return; // the spec: no response to a cancelled request
        const code = error instanceof ProtocolError ? error.code : -32603;
        const text = error instanceof Error ? error.message : String(error);
        if (!(error instanceof ProtocolError)) this.emit("error", new McpError(`Handler for ${request.method} failed: ${text}`, { cause: error }));
        this.respondError(request.id, code, text, error instanceof ProtocolError ? error.data : undefined);
      },
    );
  }

  private respond(id: JsonRpcId, result: Result): void {
    this.transport.send({ jsonrpc: "2.0", id, result }).catch((error) => this.emit("error", asError(error)));
  }

  private respondError(id: JsonRpcId, code: number, message: string, data?: unknown): void {
    const error = data === undefined ? { code, message } : { code, message, data };
    this.transport.send({ jsonrpc: "2.0", id, error }).catch((e) => this.emit("error", asError(e)));
  }

  // ---- failure paths --------------------------------------------------------------------------------

  private sendFailed(id: JsonRpcId, error: unknown, message?: JsonRpcRequest, send?: SendOptions): void {
    // The server forgot the session and refused this request: it never ran, so it goes again, unchanged,
    // on the new session instead of failing.
    if (error instanceof SessionExpiredError && message !== undefined && this.table.has(id) && message.method !== "initialize") {
      this.resendOnNewSession.set(id, { message, send });
      if (this.state === "ready") this.actor.send({ type: "SESSION_EXPIRED", error });
      return;
    }
    const failure = error instanceof McpError ? error : new TransportError(`Sending request ${String(id)} failed: ${asError(error).message}`, { cause: error, delivered: false });
    this.table.reject(id, failure);
  }

  private cancelSent(entry: PendingRequest, reason: string): void {
    // Whatever the era, the transport lets go of the exchange (HTTP: the POST and its socket).
    this.transport.abandon?.(entry.id);
    if (entry.exchange !== undefined) {
      entry.exchange.abort(reason);
      return;
    }
    if (this.transportGone) return;
    if (this.dialect) this.dialect.cancel(this, entry, reason);
    else if (entry.method !== "initialize") notificationCancelled(this, entry.id, reason);
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
    this.abortInbound(failure);
    this.actor.send({ type: "TRANSPORT_CLOSED", error: failure });
  }

  private beginNewSession(error: McpError): void {
    this.dialect = undefined;
    this.table.rejectAllExcept(
      (entry) => this.resendOnNewSession.has(entry.id),
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
    this.abortInbound(error);
    this.rejectWaiters(error);
    this.dialect?.dispose?.("closed");
    await this.closeTransport();
  }

  private flushResends(): void {
    const resends = this.resendOnNewSession;
    if (resends.size === 0) return;
    this.resendOnNewSession = new Map();
    for (const [id, { message, send }] of resends) {
      if (!this.table.has(id)) continue; // settled meanwhile (timeout, abort)
      const sent = this.transport.send(message, send);
      if (sent !== SENT) sent.then(undefined, (error) => this.sendFailed(id, error, message, send));
    }
  }

  private closeTransport(): Promise<void> {
    this.transportClosing ??= this.transport.close().catch((error) => {
      this.emit("error", asError(error));
    });
    return this.transportClosing;
  }

  private abortInbound(reason: Error): void {
    for (const controller of this.inbound.values()) controller.abort(reason);
    this.inbound.clear();
  }

  // ---- lifecycle mirror -------------------------------------------------------------------------------

  private onSnapshot(state: ConnectionState, negotiated: Negotiated | undefined, error: Error | undefined): void {
    if (state === this.state) return;
    this.state = state;
    if (state === "ready") {
      this.negotiated = negotiated;
      this.dialect = negotiated!.dialect;
      const waiters = this.waiters;
      this.waiters = [];
      for (const waiter of waiters) waiter.resolve();
      this.flushResends();
      this.dialect.onReady?.();
    }
    this.emit("state", state);
    if (state === "failed") {
      const failure = error ?? new ConnectionClosedError("The connection failed");
      this.startError = failure;
      this.table.rejectAll(failure instanceof McpError ? failure : new ConnectionClosedError(failure.message, { cause: failure }));
      this.rejectWaiters(failure);
      this.abortInbound(failure);
      this.dialect?.dispose?.("failed");
      void this.closeTransport();
      this.emit("close", failure);
      this.removeAllListeners();
    } else if (state === "closed") {
      this.startError = new ConnectionClosedError("The connection is closed", { delivered: false });
      this.rejectWaiters(this.startError);
      this.emit("close");
      this.removeAllListeners();
    }
  }

  private whenReady(signal: AbortSignal | undefined): Promise<void> {
    if (this.state === "ready") return Promise.resolve();
    if (this.startError) return Promise.reject(this.startError);
    const limit = this.options.maxQueuedRequests ?? 10_000;
    if (this.waiters.length >= limit) {
      return Promise.reject(new OverloadError(`${limit} requests are already waiting for the connection to become ready`));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      if (signal) {
        const onAbort = () => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(new RequestCancelledError("Cancelled while waiting for the connection to become ready", { delivered: false }));
        };
        signal.addEventListener("abort", onAbort, { once: true });
        waiter.resolve = () => {
          signal.removeEventListener("abort", onAbort);
          resolve();
        };
        waiter.reject = (error) => {
          signal.removeEventListener("abort", onAbort);
          reject(error);
        };
      }
      this.waiters.push(waiter);
    });
  }

  private async requestWhenReady(method: string, params: Params | undefined, options: RequestOptions | undefined): Promise<Result> {
    if (options?.waitForReady === false) {
      throw new TransportError(`Connection is ${this.state}, not ready, and the request asked not to wait`, { delivered: false });
    }
    if (options?.signal?.aborted) throw new RequestCancelledError(`Request ${method} was cancelled before it was sent`, { delivered: false });
    await this.whenReady(options?.signal);
    return this.request(method, params, options);
  }

  private rejectWaiters(error: Error): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.reject(error);
  }

  /** For tests and status: pending requests, armed timers, waiting callers, in-flight server requests. */
  stats(): { pending: number; timerArmed: boolean; waiting: number; inbound: number } {
    return { pending: this.table.size, timerArmed: this.table.timerArmed, waiting: this.waiters.length, inbound: this.inbound.size };
  }
}

function withProgressToken(params: Params | undefined, token: JsonRpcId): Params {
  const meta = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: meta ? { ...meta, progressToken: token } : { progressToken: token } };
}

const methodNotFound: ServerRequestHandler = (method) =>
  Promise.reject(new ProtocolError(`Method not found: this client has no handler for ${method}`, -32601));
