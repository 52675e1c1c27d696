/**
 * The contract between a connection and the wire. A transport moves whole JSON-RPC messages; it knows
 * nothing of MCP methods beyond what its wire needs (HTTP headers, session ids).
 *
 * Settling rules the connection relies on:
 * - `send()` resolves once the transport has done all it will do for that message, and rejects with a
 *   `TransportError` (or `SessionExpiredError`) when it could not deliver it, or when the stream that
 *   would carry its response ended for good before the response came. A rejection for a request that
 *   already got its response is harmless: the connection ignores it.
 * - `sink.close(error?)` is called exactly once, when the transport is gone: with an error when that was
 *   unexpected (process exit, socket drop), without one after `close()`.
 * - Malformed input is reported through `sink.error` and never stops the stream.
 */
import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/messages.js";
import type { McpError } from "../jsonrpc/errors.js";
import type { AuthOption } from "./auth.js";

export type TransportKind = "stdio" | "streamable-http" | "sse" | "websocket" | "memory";

export interface TransportSink {
  /** A decoded message from the server. */
  message(message: JsonRpcMessage): void;
  /** Something recoverable went wrong (garbage frame, unexpected body, a stream dropped and resumed). */
  error(error: Error): void;
  /** The transport is gone. `error` is set when the close was not asked for. */
  close(error?: McpError): void;
  /** stdio: text the server wrote to stderr. */
  stderr?(text: string): void;
  /** HTTP: the server forgot the session; the connection must initialize again. */
  sessionExpired?(error: McpError): void;
  /**
   * The response to request `id` was lost on the way (too large, skipped by the decoder): settle that
   * request with `error` now instead of at its deadline.
   */
  failed?(id: JsonRpcId, error: McpError): void;
}

export interface SendOptions {
  /** Extra HTTP headers for this message, names in lower case (2026 era: mcp-method, mcp-name, mcp-param-*). Ignored off HTTP. */
  headers?: Record<string, string> | undefined;
  /**
   * HTTP: whether a broken response stream may be resumed with Last-Event-ID (2025 era). The 2026 era
   * has no resumability: a broken stream fails the request.
   */
  resumable?: boolean | undefined;
  /** Aborts this message's exchange (HTTP: the POST and its response stream). */
  signal?: AbortSignal | undefined;
  /**
   * Streamable HTTP: this request's own credential, in place of the transport's `auth` and of any
   * Authorization among its fixed headers (RequestOptions.auth). Other transports ignore it, so a
   * caller shares only a Streamable HTTP connection this way.
   */
  auth?: AuthOption | undefined;
}

export interface Transport {
  readonly kind: TransportKind;
  /** Opens the channel; messages flow to `sink` from now on. Rejects with a `TransportError`. */
  start(sink: TransportSink): Promise<void>;
  send(message: JsonRpcMessage, options?: SendOptions): Promise<void>;
  /** Closes the channel and releases everything it holds. Idempotent. */
  close(): Promise<void>;

  /** HTTP: sent as MCP-Protocol-Version on every request after negotiation. */
  setProtocolVersion?(version: string): void;
  /** HTTP: the current Mcp-Session-Id, if any. */
  readonly sessionId?: string | undefined;
  /** HTTP: forget the session id (after expiry), so the next initialize starts a new one. */
  resetSession?(): void;
  /**
   * The request `id` timed out or was cancelled: drop whatever the transport still holds for it (HTTP:
   * its POST or resuming GET, with the socket), so a server that never answers cannot exhaust the pool.
   * Called in both eras, after or instead of `notifications/cancelled`. No effect once it settled.
   */
  abandon?(id: JsonRpcId): void;
  /**
   * Whether cancelling a request is done by aborting its exchange (`SendOptions.signal`) instead of
   * sending `notifications/cancelled`. True for 2026-era HTTP.
   */
  cancelsByAbort?(): boolean;
  /**
   * HTTP: open the standalone GET stream for server-initiated messages (2025 era). Resolves false when
   * the server has none (405).
   */
  openServerStream?(): Promise<boolean>;
  /**
   * stdio: stop the process and start a fresh one (used when a legacy server exits on an era probe).
   */
  restart?(): Promise<void>;
  /**
   * stdio: while a handler is set, an exit of the process calls it instead of closing the transport, so
   * `restart()` can bring the server back. The era probe uses it: some 2025 servers exit on a request
   * that comes before `initialize`.
   */
  setExitHandler?(handler: ((error: McpError) => void) | undefined): void;
  /**
   * HTTP: switch to the 2026 era's rules: no session id is stored or sent (so no DELETE), and a request
   * is cancelled by aborting its exchange.
   */
  enterStatelessEra?(): void;
  /** Streamable HTTP: the same endpoint over the deprecated HTTP+SSE transport, for 2025 servers without the newer one. */
  fallbackTransport?(): Transport;
  /** stdio: the child's pid while it runs. */
  readonly pid?: number | undefined;
  /** A stable key for "the same server" (stdio command line, HTTP origin+path): the era cache uses it. */
  readonly identity?: string;
}

/**
 * What `send()` returns when the message left synchronously. The connection skips its failure handler
 * for it, saving a promise per request on the hot path.
 */
export const SENT: Promise<void> = Promise.resolve();

/** Helper for transports: the ids of a message that expects a response. */
export function requestIdOf(message: JsonRpcMessage): JsonRpcId | undefined {
  return "method" in message && "id" in message ? message.id : undefined;
}
