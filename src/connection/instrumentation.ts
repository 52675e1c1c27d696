/**
 * The instrumentation seam: what telemetry may see of a connection and the messages it sends, without
 * the connection knowing OpenTelemetry (src/telemetry/ implements it; users may write their own).
 *
 * Off is the default and costs one field check per message: no object, no closure, no promise. On, the
 * connection asks the observer about every request and notification before it goes out (so trace
 * context can be added to `params._meta`) and tells it once how each one ended.
 */
import type { JsonRpcId } from "../jsonrpc/messages.js";
import type { Transport, TransportKind } from "../transports/transport.js";
import type { Negotiated, Params, Result } from "./eras/dialect.js";
import type { ConnectionState } from "./machine.js";

/** What is known of one connection's session now, read when asked (the session may change). */
export interface SessionFacts {
  readonly transport: TransportKind;
  /** The server's endpoint, for the network transports (Streamable HTTP, HTTP+SSE, WebSocket). */
  readonly url: URL | undefined;
  /** HTTP, 2025 era: the `Mcp-Session-Id` the server gave. */
  readonly sessionId: string | undefined;
  /** The negotiated protocol version, once the connection was ready. */
  readonly protocolVersion: string | undefined;
}

/** One outgoing message under observation. Its callbacks are called once, and must not throw. */
export interface MessageObserver {
  /** The params to send instead of the caller's (e.g. with trace context in `_meta`). */
  readonly params: Params | undefined;
  /** A request's result arrived, or a notification was sent. */
  readonly succeeded: (result: Result | void) => void;
  /** The request (or notification) failed: a JSON-RPC error, a timeout, a cancellation, a lost transport. */
  readonly failed: (error: unknown) => void;
}

/** The instrumentation of one connection. */
export interface ConnectionObserver {
  /**
   * A request (with its `id`) or a notification (`id` undefined) is about to be sent. Returns an
   * observer, or undefined to leave the message alone.
   */
  outgoing(method: string, id: JsonRpcId | undefined, params: Params | undefined): MessageObserver | undefined;
  /** The connection changed state; `error` says why it failed. */
  stateChanged(state: ConnectionState, error: Error | undefined): void;
}

/** Passed to `connect()` (and a Switchboard's `client` options) as `telemetry`. */
export interface Instrumentation {
  /** Called once for each connection, as it is created. */
  observe(session: SessionFacts): ConnectionObserver;
}

/** A live view of the session facts of `connection` (its transport may be replaced while negotiating). */
export function sessionFactsOf(connection: { readonly transport: Transport; readonly negotiated: Negotiated | undefined }): SessionFacts {
  return {
    get transport() {
      return connection.transport.kind;
    },
    get url() {
      // The network transports keep their endpoint in a public `url` (not part of the Transport contract).
      const url = (connection.transport as { url?: unknown }).url;
      return url instanceof URL ? url : undefined;
    },
    get sessionId() {
      return connection.transport.sessionId;
    },
    get protocolVersion() {
      return connection.negotiated?.protocolVersion;
    },
  };
}
