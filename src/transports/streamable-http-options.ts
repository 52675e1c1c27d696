/** The options of the Streamable HTTP transport (streamable-http.ts). */
import type { AuthOption } from "./auth.js";
import type { UrlPolicy } from "../auth/url-policy.js";

export interface StreamableHttpOptions {
  url: string | URL;
  /** Sent with every request. */
  headers?: Record<string, string> | undefined;
  /** A bearer token, or a function returning headers (called per request: tokens may rotate). */
  auth?: AuthOption | undefined;
  /** Re-openings of one broken stream in a row that bring nothing, before giving up (default 5). */
  maxResumeAttempts?: number | undefined;
  /** Backoff between resume attempts when the server sent no `retry` (ms; default 100, doubling, max 5000). */
  resumeBackoff?: { initialMs: number; maxMs: number } | undefined;
  /** Sockets per origin for requests (default 64). */
  maxSockets?: number | undefined;
  /** How long close() waits for the session DELETE (default 2000 ms). */
  deleteTimeoutMs?: number | undefined;
  /** The largest message the server may send: one JSON body or one event (default 16 MiB). */
  maxMessageBytes?: number | undefined;
  /** How long a POST that carries no request (a notification, a response) waits for its answer (default 10000 ms). */
  notificationTimeoutMs?: number | undefined;
  /** The longest wait before a resume the server's `retry` may ask for (default 60000 ms; at least 100 ms is kept). */
  maxRetryMs?: number | undefined;
  /** Which URLs may be fetched: the server's at start, each redirect hop, each connection's address (auth/url-policy.ts). */
  urlPolicy?: UrlPolicy | undefined;
}
