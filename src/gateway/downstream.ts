/**
 * One downstream client as the gateway's handlers see it, whatever carries its messages: a 2025 HTTP
 * session, a stdio peer, or one stateless 2026 request. Its requests in flight are kept by id so a
 * `notifications/cancelled` can abort the board call (and so the upstream request) it started.
 */
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest } from "../jsonrpc/messages.js";
import type { ClientRequests } from "./client-requests.js";

export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

export const LOG_LEVELS: readonly LogLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

export interface Downstream {
  /** Who the client authenticated as; undefined without auth in front. */
  readonly principal: string | undefined;
  /** The protocol version agreed with this client. */
  protocolVersion: string;
  /** Its name and version, from `initialize`. */
  clientInfo: { name?: unknown; version?: unknown } | undefined;
  /** The capabilities it declared in `initialize` (sampling, elicitation, roots: what may be asked of it). */
  capabilities?: Record<string, unknown> | undefined;
  /** Its session id (2025 era HTTP); undefined for a stdio peer. */
  readonly id?: string | undefined;
  /** For the observer and telemetry (session-view.ts): tool calls made, when it opened and last sent a request (ms). */
  calls?: number | undefined;
  readonly startedAt?: number | undefined;
  lastSeen?: number | undefined;
  /** The gateway's requests to it waiting for an answer (client-requests.ts); made for the first. */
  requests?: ClientRequests | undefined;
  /** The least severe log message it asked for (`logging/setLevel`); undefined: none forwarded. */
  logLevel: LogLevel | undefined;
  /** Requests running, by their JSON-RPC id. */
  readonly inFlight: Map<JsonRpcId, AbortController>;
  /** Sends a message outside any response (the GET stream, stdout); dropped when there is nowhere to send it. */
  push(message: JsonRpcNotification | JsonRpcRequest): void;
}

export function wantsLog(downstream: Downstream, level: LogLevel): boolean {
  return downstream.logLevel !== undefined && LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(downstream.logLevel);
}
