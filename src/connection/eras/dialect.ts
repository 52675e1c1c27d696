/**
 * The seam between protocol eras. Everything era-specific on the wire lives behind `Dialect` (and
 * `negotiate`, which picks one), so the client API, the supervisor and the adapters never branch on the
 * era.
 */
import type { JsonRpcId } from "../../jsonrpc/messages.js";
import type { SendOptions, Transport } from "../../transports/transport.js";
import type { ConnectionEvents } from "../events.js";
import type { PendingRequest } from "../request-table.js";
import type { RequestOptions } from "../request-options.js";
import type { ListenFilter, ListenOptions, Subscription } from "./listen.js";

export type Era = "legacy" | "modern";
export type Params = Record<string, unknown>;
export type Result = Record<string, unknown>;

/**
 * Answers what the server asks of the client (sampling, elicitation, roots). Throws to refuse.
 * `inputKey`: its key in an input_required result (2026 era). `origin`: the `RequestOptions.origin`
 * of the request that caused it, when that is known (it came on that request's own stream, or inside
 * its result).
 */
export type ServerRequestHandler = (method: string, params: Params, signal: AbortSignal, inputKey?: string, origin?: object) => Promise<Result>;

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  [key: string]: unknown;
}

/**
 * What a dialect (and negotiation) may use of its connection: a private object the connection hands
 * them, not methods on the connection itself.
 */
export interface Wire {
  /** The transport under the connection now (negotiation may swap it for the HTTP+SSE fallback). */
  readonly transport: Transport;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: Record<string, unknown>;
  readonly requestTimeoutMs: number;
  /** The client's handlers for server-to-client requests (the same in both eras). */
  readonly handleServerRequest: ServerRequestHandler;
  /**
   * One request/response exchange: a fresh id, a RequestTable entry, a send. Usable while the
   * connection negotiates. A progress token is added to `params._meta` when options ask for progress.
   */
  roundTrip(method: string, params: Params | undefined, options?: RequestOptions, send?: SendOptions): Promise<Result>;
  /** `roundTrip`, also telling the id it used (listen streams are known by their request id). */
  roundTripWithId(method: string, params: Params | undefined, options?: RequestOptions, send?: SendOptions): { id: JsonRpcId; result: Promise<Result> };
  /** Settles a pending request locally, telling the server nothing (it ended the exchange itself). */
  forget(id: JsonRpcId, error: Error): void;
  /** Sends a notification (fire and forget; a failed send rejects). */
  sendNotification(method: string, params?: Params, send?: SendOptions): Promise<void>;
  /** Swaps the transport under the connection (HTTP: the deprecated HTTP+SSE fallback). */
  replaceTransport(next: Transport): Promise<void>;
  /** Emits a connection event: what the era makes of a server notification, or an `error` to report. */
  emit<E extends keyof ConnectionEvents>(event: E, ...args: ConnectionEvents[E]): void;
  /** The server cancelled its request `id` (2025 era): its handler's signal aborts and no answer goes out. */
  cancelServerRequest(id: JsonRpcId, reason: Error): void;
}

export type ListKind = "tools" | "resources" | "prompts";

/**
 * Marks a result that no cache may keep whatever its `ttlMs` says: the answer of an MRTR retry was
 * made from this caller's input responses (a user's consent, a model's reply), so replaying it to a
 * later plain request would skip the prompt. A non-enumerable symbol: invisible to JSON and spreads.
 */
export const UNCACHEABLE: unique symbol = Symbol("mcp-switchboard.uncacheable");

export function markUncacheable(result: Result): Result {
  Object.defineProperty(result, UNCACHEABLE, { value: true, enumerable: false });
  return result;
}

export function isUncacheable(result: Result): boolean {
  return (result as { [UNCACHEABLE]?: boolean })[UNCACHEABLE] === true;
}

/**
 * How the connection treats traffic it did not start: server requests, server notifications, and the
 * cancellation of its own requests. Each dialect has its rules; before the era is decided, negotiation's
 * rules apply (see negotiate.ts).
 */
export interface EraRules {
  /**
   * Why a server request is dropped (reported as an `error` event) instead of answered, or undefined:
   * the 2025 era answers them, the 2026 era has none.
   */
  refuseServerRequest(method: string): Error | undefined;
  /** Tells the server a sent request is no longer wanted (timeout or caller abort). */
  cancel(entry: PendingRequest, reason: string): void;
  /**
   * Turns a server notification into the connection's events (`log`, `toolsChanged`, ...). Progress is
   * routed by the connection itself, and every notification is also a `notification` event.
   */
  onNotification(method: string, params: Params | undefined): void;
}

/** One protocol era's wire rules, for the life of a negotiated connection. */
export interface Dialect extends EraRules {
  readonly era: Era;
  readonly protocolVersion: string;
  /** A request under this era's rules (envelope, headers, multi-round trips); a method the era lacks is refused. */
  request(method: string, params: Params | undefined, options?: RequestOptions): Promise<Result>;
  notify(method: string, params?: Params): Promise<void>;
  /** Opens a `subscriptions/listen` stream; the 2025 era has none and throws its typed error. */
  listen(filter: ListenFilter, options?: ListenOptions): Promise<Subscription>;
  /** resources/subscribe in the 2025 era; a listen with `resourceSubscriptions` in the 2026 era. */
  subscribeResource(uri: string, options?: RequestOptions): Promise<void>;
  unsubscribeResource(uri: string, options?: RequestOptions): Promise<void>;
  /** Called each time the connection becomes ready (2026 era: opens the automatic listen). Must not throw. */
  onReady?(): void;
  /** Called when the connection closes (by the client) or fails, to release era state (listen streams). */
  dispose?(how: "closed" | "failed"): void;
}

/** The server facts negotiation establishes. */
export interface Negotiated {
  dialect: Dialect;
  protocolVersion: string;
  serverCapabilities: Record<string, unknown>;
  serverInfo: Implementation | undefined;
  instructions: string | undefined;
  /** 2026 era: the full `server/discover` result. */
  discover?: Result;
}

export type ProtocolMode = "auto" | "legacy" | (string & {});

export interface NegotiationContext {
  wire: Wire;
  mode: ProtocolMode;
  /** A verdict from an earlier connection to the same server, to skip probing. */
  prior?: PriorVerdict | undefined;
  settings?: NegotiationSettings | undefined;
}

export type PriorVerdict = { kind: "legacy" } | { kind: "modern"; discover: Result };

/** Client-side choices that shape a negotiation. */
export interface NegotiationSettings {
  /** How long the era probe waits for an answer before deciding "2025 era" (stdio only). */
  probeTimeoutMs?: number | undefined;
  /** The deadline of each handshake request (the probe, `initialize`). Default: the connection's `requestTimeoutMs`. */
  handshakeTimeoutMs?: number | undefined;
  /** Declare and drive the tasks extension (`io.modelcontextprotocol/tasks`). */
  tasks?: boolean | undefined;
  /**
   * 2026 era: open a `subscriptions/listen` for the list kinds the server advertises `listChanged`
   * for, so change events arrive as they do unasked in the 2025 era (default true).
   */
  autoListen?: boolean | undefined;
}
