/**
 * Streamable HTTP (MCP 2025-03-26 and later, and the 2026-07-28 era): each message is a POST; the reply
 * is 202 (notifications, responses), one JSON body, or an SSE stream carrying this request's
 * notifications and then its response.
 *
 * Sessions: `Mcp-Session-Id` from any response is sent from then on; a 404 on a request that carried
 * one means the server forgot the session (SessionExpiredError, and the connection initializes anew);
 * DELETE on close. Event streams, a POST's reply and the standalone GET stream, are read by one
 * resumable reader (`sse-reader.ts`). Every request's exchange is kept by its JSON-RPC id, so one that
 * timed out or was cancelled can be dropped with its socket (`abandon`): a hung server must not keep the
 * pool busy. Same-origin 307/308 redirects are followed and the final URL kept.
 */
import { ConnectionClosedError, SessionExpiredError, StreamLostError, TransportError } from "../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/messages.js";
import { FramingError } from "../framing/errors.js";
import type { OversizeFrameError } from "../framing/oversize.js";
import type { BackoffPolicy } from "../util/backoff.js";
import {
  discard,
  followRedirects,
  headerValue,
  httpRequest,
  httpStatusError,
  isRedirect,
  jsonRpcErrorIn,
  readBody,
  readBodySample,
  unusableJsonAnswer,
  type HttpRequestOptions,
  type HttpResponse,
} from "./http-client.js";
import type { StreamableHttpOptions } from "./streamable-http-options.js";
import { authPerRequest, authorizedRequest, ownCredential } from "./http-auth.js";
import { HttpPools } from "./http-pools.js";
import { HttpSession } from "./http-session.js";
import { answers, deliver, deliverJsonBody } from "./deliver.js";
import { deliveringFor } from "../util/request-context.js";
import { Exchanges, unlimitedController, whileCombined } from "./exchanges.js";
import { postRequest, type PostHost } from "./json-post.js";
import { LegacySseTransport } from "./legacy-sse.js";
import { messageLimit, messageTooLarge } from "./message-limit.js";
import { DEFAULT_MAX_RETRY_MS, StreamCursor, readResumable, type EventRead, type ResumableReadOptions } from "./sse-reader.js";
import { requestIdOf, type SendOptions, type Transport, type TransportSink } from "./transport.js";

export type { HeaderProvider } from "./auth.js";
export type { StreamableHttpOptions } from "./streamable-http-options.js";

type StreamSettings = Pick<ResumableReadOptions, "maxMessageBytes" | "maxAttempts" | "backoff" | "maxRetryMs" | "warn" | "tooLarge">;

/** A POST's event-stream reply: the response itself, or what json-post.ts already began reading of it. */
type PostReply = HttpResponse | EventRead;

export class StreamableHttpTransport implements Transport {
  readonly kind = "streamable-http" as const;
  /** The URL as configured. */
  readonly url: URL;
  /** Where requests go: `url`, or where a same-origin redirect sent them. */
  endpoint: URL;
  readonly identity: string;
  private abortCancels = false;
  private sink: TransportSink | undefined;
  private readonly pools: HttpPools;
  private readonly options: StreamableHttpOptions;
  private readonly maxMessageBytes: number;
  private readonly backoff: BackoffPolicy;
  private readonly session: HttpSession;
  /** The auth option adds headers per request (a function or a provider): requests go through http-auth.ts. */
  private readonly authPerRequest: boolean;
  /** The HTTP request now carrying each pending request (see exchanges.ts). */
  readonly exchanges = new Exchanges();
  /** Every GET stream in flight, so close() can abort them all. */
  private readonly inflight = new Set<AbortController>();
  /** Aborts every POST at close(). Each request adds a listener while it runs: no listener limit. */
  private readonly closeSignal = unlimitedController();
  private closed = false;
  private closing: Promise<void> | undefined;
  /** json-post.ts's view of this transport. */
  private readonly poster: PostHost;

  constructor(options: StreamableHttpOptions) {
    this.options = options;
    this.url = new URL(options.url);
    this.endpoint = this.url;
    this.identity = `http:${this.url.origin}${this.url.pathname}`;
    this.pools = new HttpPools(this.url, options.maxSockets, options.urlPolicy);
    this.maxMessageBytes = messageLimit(options.maxMessageBytes);
    const { initialMs, maxMs } = options.resumeBackoff ?? { initialMs: 100, maxMs: 5000 };
    this.backoff = { initialMs, maxMs, factor: 2, jitter: 0 };
    this.session = new HttpSession(options.headers, options.auth);
    this.authPerRequest = authPerRequest(options.auth);
    this.poster = {
      pool: this.pools.requests,
      exchanges: this.exchanges,
      maxMessageBytes: this.maxMessageBytes,
      target: this,
      closing: this.closeSignal.signal,
      session: this.session,
      deliverJson: (body, id) => deliverJsonBody(this.sink, body, id, this.endpoint.href),
      answer: (response, id, request, resumable) => this.answer(response, id, request, resumable),
      eventSettings: () => this.shared ?? this.streamSettings(this.closeSignal.signal),
      deliverEvent: this.deliver,
      resumeReply: (read, id, resumable, answered) => this.readPostStream(read, id, resumable, this.closeSignal.signal, answered),
    };
  }

  async start(sink: TransportSink): Promise<void> {
    if (this.closed) throw new ConnectionClosedError(`Transport to ${this.url.href} is closed`, { delivered: false });
    this.sink = sink;
    await this.options.urlPolicy?.check(this.url, "config");
  }

  setProtocolVersion(version: string): void {
    this.session.protocolVersion = version;
  }

  /** HTTP: the current Mcp-Session-Id, if any. */
  get sessionId(): string | undefined {
    return this.session.id;
  }

  resetSession(): void {
    this.session.id = undefined;
  }

  cancelsByAbort(): boolean {
    return this.abortCancels;
  }

  /** The 2026 era cancels a request by aborting its exchange instead of notifying. */
  setCancelsByAbort(value: boolean): void {
    this.abortCancels = value;
  }

  fallbackTransport(): Transport {
    return new LegacySseTransport({ url: this.url, headers: this.options.headers, auth: this.options.auth, maxMessageBytes: this.maxMessageBytes });
  }

  /** The 2026 era: no sessions (nothing stored, sent or DELETEd) and cancellation by abort. */
  enterStatelessEra(): void {
    this.session.stateless = true;
    this.abortCancels = true;
    this.session.id = undefined;
  }

  /**
   * Drops the exchange of a request that timed out or was cancelled: its POST (or resuming GET) is
   * destroyed with its socket, so a server that never answers cannot hold the pool.
   */
  abandon(id: JsonRpcId): void {
    this.exchanges.abandon(id);
  }

  send(message: JsonRpcMessage, options?: SendOptions): Promise<void> {
    if (this.closed) return Promise.reject(new ConnectionClosedError(`Transport to ${this.url.href} is closed`, { delivered: false }));
    const requestId = requestIdOf(message);
    // The usual request: json-post.ts, one promise. close() and abandon() end it through `exchanges`.
    if (requestId !== undefined && options?.signal === undefined && options?.auth === undefined && !this.authPerRequest) {
      return postRequest(this.poster, requestId, JSON.stringify(message), options?.headers, options?.resumable !== false);
    }
    // close() aborts every other POST through one transport-wide signal: a controller per message was
    // the largest single cost of a small request. Only a caller's own signal (2026-era cancellation)
    // needs combining with it.
    if (options?.signal === undefined) return this.post(message, options ?? {}, this.closeSignal.signal);
    return whileCombined(options.signal, this.closeSignal.signal, (signal) => this.post(message, options, signal));
  }

  /**
   * One POST by the general path: a request with its own signal or per-request auth, a notification or
   * a response. A request's exchange is kept by its id (for `abandon`); a notification or a response
   * goes over the side pool, bounded by `notificationTimeoutMs`.
   */
  private async post(message: JsonRpcMessage, options: SendOptions, signal: AbortSignal): Promise<void> {
    const requestId = requestIdOf(message);
    if (requestId !== undefined) this.exchanges.open(requestId);
    try {
      const headers = this.session.headers({ "content-type": "application/json", accept: "application/json, text/event-stream", ...options.headers });
      const request: HttpRequestOptions = { method: "POST", url: this.endpoint, headers, body: JSON.stringify(message), signal, pool: this.pools.requests };
      if (requestId !== undefined) request.onRequest = (http) => this.exchanges.keep(requestId, http);
      else Object.assign(request, { pool: this.pools.side, timeoutMs: this.options.notificationTimeoutMs ?? 10_000 });
      const auth = options.auth === undefined ? this.options.auth : ownCredential(headers, options.auth);
      const response = authPerRequest(auth) ? await authorizedRequest(auth, this.url, request, this.moved) : await httpRequest(request);
      await this.answer(response, requestId, request, options.resumable !== false);
    } finally {
      if (requestId !== undefined) this.exchanges.finish(requestId);
    }
  }

  /**
   * A POST's reply, whatever it is: redirects, 202, an expired session, an error status, an event
   * stream or a JSON body. `request` is the POST as sent (its headers name the session it carried).
   */
  private async answer(response: HttpResponse, requestId: JsonRpcId | undefined, request: HttpRequestOptions, resumable: boolean): Promise<void> {
    const sentSession = request.headers["mcp-session-id"];
    const signal = request.signal ?? this.closeSignal.signal;
    if (isRedirect(response.statusCode)) {
      const final = await followRedirects(response, request);
      this.moved(final.url);
      response = final.response;
    }
    this.session.capture(response);
    const status = response.statusCode ?? 0;
    const url = this.endpoint;
    if (status === 202 || status === 204) return discard(response);
    if (status === 404 && sentSession !== undefined) {
      discard(response);
      // The connection sees the rejection, starts a new session and sends this request again.
      throw new SessionExpiredError(`${url.href}: the server no longer knows session ${sentSession} (HTTP 404); starting a new session`, {
        url: url.href,
        status,
        delivered: false,
      });
    }
    if (status >= 400) {
      const body = await readBodySample(response, 4096);
      const answer = jsonRpcErrorIn(body, requestId);
      if (answer) return void this.sink?.message(answer);
      throw httpStatusError("POST", url, status, body.slice(0, 500), status >= 500, headerValue(response, "retry-after"));
    }
    const type = headerValue(response, "content-type") ?? "";
    if (type.includes("text/event-stream")) {
      // A stream in reply to a notification (the spec wants 202) is read, but nothing waits on it.
      if (requestId === undefined) return void this.readPostStream(response, undefined, false, signal).catch(() => {});
      return await this.readPostStream(response, requestId, resumable, signal);
    }
    if (type.includes("application/json")) {
      const body = await readBody(response, this.maxMessageBytes, "POST", url);
      // The body is the answer: one without it fails the request now, not at its deadline.
      const problem = deliverJsonBody(this.sink, body, requestId, url.href);
      if (problem !== undefined) throw unusableJsonAnswer("POST", url, status, problem, body);
      return;
    }
    const body = await readBodySample(response);
    if (requestId !== undefined) {
      throw new TransportError(`POST ${url.href} answered HTTP ${status} with content type "${type}", not JSON or an event stream${body ? `: ${body}` : ""}`, {
        url: url.href,
        status,
        body,
        delivered: true,
      });
    }
  }

  /** Later requests go straight to where a (same-origin) redirect chain ended. */
  private readonly moved = (url: URL): void => {
    this.endpoint = url;
  };

  /** Reads a POST's SSE reply (or what is left to do after json-post.ts read it); resumes it if it breaks before its response. */
  private async readPostStream(first: PostReply, id: JsonRpcId | undefined, resumable: boolean, signal: AbortSignal, answered = false) {
    const end = await readResumable(first, {
      ...this.streamSettings(signal),
      cursor: "cursor" in first ? first.cursor : new StreamCursor(),
      resumable,
      reopenWithoutCursor: false,
      oversizeEndsStream: true,
      reopen: (cursor) => this.resume(cursor, id!, signal),
      live: () => id !== undefined && !answered && !this.closed && !signal.aborted && this.exchanges.isOpen(id),
      // Delivered as the request's: a server request or log on its stream was caused by it.
      deliver: deliveringFor(id)((value: unknown) => {
        if (this.deliver(value) && answers(value, id)) answered = true;
      }),
    });
    if (end.kind === "oversize") throw end.error;
    if (end.kind === "done") return;
    const cause = end.kind === "lost" ? end.cause : undefined;
    const why = end.kind === "lost" ? end.why : "the server no longer offers it";
    throw new StreamLostError(
      `The event stream for request ${String(id)} at ${this.endpoint.href} ${cause ? `broke (${cause.message})` : "ended"} before its response; ${why}. The request may have run.`,
      { url: this.endpoint.href, delivered: true, cause },
    );
  }

  private async resume(cursor: StreamCursor, requestId: JsonRpcId, signal: AbortSignal): Promise<HttpResponse> {
    const headers = this.session.headers({ accept: "text/event-stream", "last-event-id": cursor.lastEventId! });
    const onRequest: HttpRequestOptions["onRequest"] = (http) => this.exchanges.keep(requestId, http);
    const request: HttpRequestOptions = { method: "GET", url: this.endpoint, headers, signal, pool: this.pools.requests, onRequest };
    const response = await authorizedRequest(this.options.auth, this.url, request, this.moved);
    if (response.statusCode !== 200) throw httpStatusError("GET (resume)", this.endpoint, response.statusCode, await readBodySample(response), true);
    this.sink?.error(new FramingError(`Resumed the event stream for request ${String(requestId)} after event ${cursor.lastEventId}`));
    return response;
  }

  /** What every event stream of this transport shares (made once: a POST's SSE reply is a stream too). */
  private streamSettings(signal: AbortSignal): StreamSettings & { signal: AbortSignal } {
    this.shared ??= {
      maxMessageBytes: this.maxMessageBytes,
      maxAttempts: this.options.maxResumeAttempts ?? 5,
      backoff: this.backoff,
      maxRetryMs: this.options.maxRetryMs ?? DEFAULT_MAX_RETRY_MS,
      warn: (error) => this.sink?.error(error),
      tooLarge: (error: OversizeFrameError) =>
        messageTooLarge(`The event stream at ${this.endpoint.href}`, error.bytes, error.limit, { url: this.endpoint.href }),
    };
    return { ...this.shared, signal };
  }
  private shared: StreamSettings | undefined;

  private readonly deliver = (value: unknown): boolean => deliver(this.sink, value, this.endpoint.href);

  /**
   * Opens the standalone GET stream for server-initiated messages (2025 era). Resolves false when the
   * server has none (405). Re-opens it (with Last-Event-ID once the server gave ids) when it drops,
   * until close(); an oversize event on it is skipped with an error event.
   */
  async openServerStream(): Promise<boolean> {
    const cursor = new StreamCursor();
    const first = await this.getStream(cursor);
    if (first === undefined) return false;
    void readResumable(first, {
      ...this.streamSettings(this.closeSignal.signal),
      cursor,
      resumable: true,
      reopenWithoutCursor: true,
      oversizeEndsStream: false,
      reopen: (next) => this.getStream(next),
      live: () => !this.closed,
      deliver: (value) => void this.deliver(value),
    }).then((end) => {
      if (end.kind !== "lost" || this.closed) return;
      this.sink?.error(
        new TransportError(`The server-to-client event stream at ${this.endpoint.href} could not be re-opened: ${end.why}`, {
          url: this.endpoint.href,
          cause: end.cause,
        }),
      );
    });
    return true;
  }

  private async getStream(cursor: StreamCursor): Promise<HttpResponse | undefined> {
    const exchange = new AbortController();
    this.inflight.add(exchange);
    const extra: Record<string, string> = { accept: "text/event-stream" };
    if (cursor.lastEventId !== undefined) extra["last-event-id"] = cursor.lastEventId;
    try {
      const request: HttpRequestOptions = {
        method: "GET",
        url: this.endpoint,
        headers: this.session.headers(extra),
        signal: exchange.signal,
        pool: this.pools.stream,
      };
      const response = await authorizedRequest(this.options.auth, this.url, request, this.moved);
      const status = response.statusCode ?? 0;
      if (status === 405) {
        discard(response);
        this.inflight.delete(exchange);
        return undefined;
      }
      if (status !== 200) {
        const body = await readBodySample(response);
        this.inflight.delete(exchange);
        throw httpStatusError("GET", this.endpoint, status, body, false);
      }
      response.once("close", () => this.inflight.delete(exchange));
      return response;
    } catch (error) {
      this.inflight.delete(exchange);
      throw error;
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    const reason = new ConnectionClosedError("transport closed");
    this.closeSignal.abort(reason);
    for (const exchange of this.inflight) exchange.abort(reason);
    this.inflight.clear();
    this.exchanges.abandonAll();
    if (this.session.id !== undefined) {
      // Tell the server it may forget the session. Bounded, and its failure changes nothing.
      await authorizedRequest(this.options.auth, this.url, {
        method: "DELETE",
        url: this.endpoint,
        headers: this.session.headers({}),
        pool: this.pools.side,
        timeoutMs: this.options.deleteTimeoutMs ?? 2000,
      })
        .then(discard)
        .catch(() => {});
      this.session.id = undefined;
    }
    await this.pools.destroy();
    const sink = this.sink;
    this.sink = undefined;
    sink?.close();
  }
}
