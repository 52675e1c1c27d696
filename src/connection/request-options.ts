import type { AuthOption } from "../transports/auth.js";

/** What a caller may say about one request. */
export interface ProgressInfo {
  progress: number;
  total?: number | undefined;
  message?: string | undefined;
}

export interface RequestOptions {
  /** Deadline for a response, in ms. Default: the connection's `requestTimeoutMs` (60000). */
  timeoutMs?: number | undefined;
  /** Aborting it cancels the request: the promise rejects with `RequestCancelledError`. */
  signal?: AbortSignal | undefined;
  /** Called for each progress notification of this request. Asking for it sends a progress token. */
  onProgress?: ((progress: ProgressInfo) => void) | undefined;
  /**
   * Each progress notification restarts the `timeoutMs` clock (bounded by `maxTotalTimeoutMs`). In the
   * 2026 era a call (its MRTR rounds, input handlers, task polling) is bounded as a whole by
   * `maxTotalTimeoutMs ?? timeoutMs`: progress restarts a round's clock, never the call's deadline.
   */
  resetTimeoutOnProgress?: boolean | undefined;
  /** A hard limit on the whole request, however much progress arrives. */
  maxTotalTimeoutMs?: number | undefined;
  /**
   * Before the connection is ready, requests wait for it (bounded). With `waitForReady: false` they
   * fail at once instead.
   */
  waitForReady?: boolean | undefined;
  /**
   * 2026 era: whether the request may be sent again (as a new request) when its response stream breaks.
   * Default: yes for reads and lists and for tools annotated read-only or idempotent, no otherwise.
   */
  idempotent?: boolean | undefined;
  /**
   * Streamable HTTP: the credential of this request alone, in place of the connection's `auth` (whose
   * Authorization header it then does not carry). For a 2026-07-28 server, where one connection serves
   * many users' requests (a Switchboard principal's, say); a 2025 session belongs to one credential.
   */
  auth?: AuthOption | undefined;
  /**
   * What answers the server requests this request causes, and hears its logs: a call's own handlers
   * (src/client/call-handlers.ts), kept with the request in the table (src/util/request-context.ts).
   *
   * @internal
   */
  origin?: object | undefined;
}
