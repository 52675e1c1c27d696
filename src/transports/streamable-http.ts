/**
 * Streamable HTTP (MCP 2025-03-26 and later, and the 2026-07-28 era): each message is a POST; the reply
 * is 202 (notifications, responses), one JSON body, or an SSE stream carrying this request's
 * notifications and then its response.
 *
 * Sessions: `Mcp-Session-Id` from any response is sent from then on; a 404 on a request that carried
 * one means the server forgot the session (SessionExpiredError, and the connection initializes anew);
 * DELETE on close. Resumability (2025 era): a stream that ends or breaks before its response is
 * resumed with GET + Last-Event-ID, after the server's `retry` or a bounded exponential backoff; event
 * ids already seen are dropped, so nothing is delivered twice.
 */
import { setMaxListeners } from "node:events";
import type { Agent, IncomingMessage } from "node:http";
import { ConnectionClosedError, SessionExpiredError, StreamLostError, TransportError } from "../jsonrpc/errors.js";
import { classifyMessage, type JsonRpcId, type JsonRpcMessage } from "../jsonrpc/messages.js";
import { FramingError } from "../framing/errors.js";
import { SseDecoder, parseEventData } from "../framing/sse.js";
import { createAgent, headerValue, httpRequest, httpStatusError, readBody, readBodySample } from "./http-client.js";
import { fixedHeaders, type AuthOption } from "./auth.js";
import { authorizedRequest } from "./http-auth.js";
import { LegacySseTransport } from "./legacy-sse.js";
import { sleep } from "../util/timers.js";
import { requestIdOf, type SendOptions, type Transport, type TransportSink } from "./transport.js";

export type { HeaderProvider } from "./auth.js";

export interface StreamableHttpOptions {
  url: string | URL;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** A bearer token, a function returning headers (called per request: tokens may rotate), or an AuthProvider such as oauth(). */
  auth?: AuthOption;
  /** Resume attempts for one broken stream (default 5). */
  maxResumeAttempts?: number;
  /** Backoff between resume attempts when the server sent no `retry` (ms; default 100, doubling, max 5000). */
  resumeBackoff?: { initialMs: number; maxMs: number };
  /** Sockets per origin (default 64). */
  maxSockets?: number;
  /** How long close() waits for the session DELETE (default 2000 ms). */
  deleteTimeoutMs?: number;
}

interface StreamState {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  seen: Set<string>;
}

export class StreamableHttpTransport implements Transport {
  readonly kind = "streamable-http" as const;
  readonly url: URL;
  readonly identity: string;
  sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private abortCancels = false;
  private stateless = false;
  private sink: TransportSink | undefined;
  private readonly agent: Agent;
  private readonly options: StreamableHttpOptions;
  /** The headers that never change: the caller's, and a static bearer token, lower-cased once. */
  private readonly fixedHeaders: Record<string, string>;
  /** Every GET stream in flight, so close() can abort them all. */
  private readonly inflight = new Set<AbortController>();
  /** Aborts every POST at close(). Each request adds a listener while it runs: no listener limit. */
  private readonly closeSignal = unlimitedController();
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(options: StreamableHttpOptions) {
    this.options = options;
    this.url = new URL(options.url);
    this.identity = `http:${this.url.origin}${this.url.pathname}`;
    this.agent = createAgent(this.url, options.maxSockets);
    this.fixedHeaders = fixedHeaders(options.headers, options.auth);
  }

  async start(sink: TransportSink): Promise<void> {
    if (this.closed) throw new ConnectionClosedError(`Transport to ${this.url.href} is closed`, { delivered: false });
    this.sink = sink;
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }

  resetSession(): void {
    this.sessionId = undefined;
  }

  cancelsByAbort(): boolean {
    return this.abortCancels;
  }

  /** The 2026 era cancels a request by aborting its exchange instead of notifying. */
  setCancelsByAbort(value: boolean): void {
    this.abortCancels = value;
  }

  fallbackTransport(): Transport {
    return new LegacySseTransport({ url: this.url, headers: this.options.headers, auth: this.options.auth });
  }

  /** The 2026 era: no sessions (nothing stored, sent or DELETEd) and cancellation by abort. */
  enterStatelessEra(): void {
    this.stateless = true;
    this.abortCancels = true;
    this.sessionId = undefined;
  }

  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
    if (this.closed) throw new ConnectionClosedError(`Transport to ${this.url.href} is closed`, { delivered: false });
    // close() aborts every POST through one transport-wide signal: a controller per message was the
    // largest single cost of a small request. Only a caller's own signal (2026-era cancellation) needs
    // combining with it.
    if (options.signal === undefined) return this.post(message, options, this.closeSignal.signal);
    // Combined by hand: AbortSignal.any() over a long-lived source signal leaked its dependents in some
    // Node versions (nodejs/node#55351), and this one lives as long as the transport.
    const exchange = new AbortController();
    const abort = (event: Event) => exchange.abort((event.target as AbortSignal).reason);
    if (options.signal.aborted) exchange.abort(options.signal.reason);
    options.signal.addEventListener("abort", abort, { once: true });
    this.closeSignal.signal.addEventListener("abort", abort, { once: true });
    try {
      await this.post(message, options, exchange.signal);
    } finally {
      options.signal.removeEventListener("abort", abort);
      this.closeSignal.signal.removeEventListener("abort", abort);
    }
  }

  private async post(message: JsonRpcMessage, options: SendOptions, signal: AbortSignal): Promise<void> {
    const requestId = requestIdOf(message);
    const sentSession = this.sessionId;
    const headers = this.headers({ "content-type": "application/json", accept: "application/json, text/event-stream", ...options.headers });
    const response = await authorizedRequest(this.options.auth, this.url, { method: "POST", url: this.url, headers, body: JSON.stringify(message), signal, agent: this.agent });
    this.captureSession(response);
    const status = response.statusCode ?? 0;
    if (status === 202 || status === 204) {
      response.resume();
      return;
    }
    if (status === 404 && sentSession !== undefined) {
      response.resume();
      const error = new SessionExpiredError(`${this.url.href}: the server no longer knows session ${sentSession} (HTTP 404); starting a new session`, {
        url: this.url.href,
        status,
        delivered: false,
      });
      // The connection sees the rejection, starts a new session and sends this request again.
      throw error;
    }
    if (status >= 400) {
      const body = await readBodySample(response, 4096);
      // A JSON-RPC error for this request is the server's answer, not a transport failure.
      const answer = jsonRpcAnswer(body, requestId);
      if (answer) {
        this.sink?.message(answer);
        return;
      }
      throw httpStatusError("POST", this.url, status, body.slice(0, 500), status >= 500);
    }
    const type = headerValue(response, "content-type") ?? "";
    if (type.includes("text/event-stream")) {
      await this.readPostStream(response, requestId, options.resumable !== false, signal);
    } else if (type.includes("application/json")) {
      this.deliverJson(await readBody(response));
    } else {
      const body = await readBodySample(response);
      if (requestId !== undefined) {
        throw new TransportError(`POST ${this.url.href} answered HTTP ${status} with content type "${type}", not JSON or an event stream${body ? `: ${body}` : ""}`, {
          url: this.url.href,
          status,
          body,
          delivered: true,
        });
      }
    }
  }

  /** Reads a POST's SSE reply; resumes it if it breaks before the response it carries. */
  private async readPostStream(first: IncomingMessage, requestId: JsonRpcId | undefined, resumable: boolean, signal: AbortSignal): Promise<void> {
    const state: StreamState = { lastEventId: undefined, retryMs: undefined, seen: new Set() };
    let answered = false;
    const onMessage = (message: JsonRpcMessage) => {
      if (requestId !== undefined && !("method" in message) && message.id === requestId) answered = true;
    };
    let response: IncomingMessage | undefined = first;
    let attempts = 0;
    for (;;) {
      const broken = response ? await this.readStream(response, state, onMessage) : new Error("resume failed");
      if (answered || requestId === undefined || this.closed || signal.aborted) return;
      if (!resumable || state.lastEventId === undefined || attempts >= (this.options.maxResumeAttempts ?? 5)) {
        const why = !resumable
          ? "this protocol era has no resumable streams"
          : state.lastEventId === undefined
            ? "the server sent no event ids to resume from"
            : `${attempts} resume attempts failed`;
        throw new StreamLostError(`The event stream for request ${String(requestId)} at ${this.url.href} ${broken ? `broke (${broken.message})` : "ended"} before its response; ${why}. The request may have run.`, {
          url: this.url.href,
          delivered: true,
          cause: broken,
        });
      }
      await sleep(state.retryMs ?? this.backoff(attempts), signal);
      attempts++;
      response = await this.resume(state, signal).catch((error: Error) => {
        this.sink?.error(error);
        return undefined;
      });
      if (response === undefined) continue;
      this.sink?.error(new FramingError(`Resumed the event stream for request ${String(requestId)} after event ${state.lastEventId}`));
    }
  }

  private async resume(state: StreamState, signal: AbortSignal): Promise<IncomingMessage | undefined> {
    const headers = this.headers({ accept: "text/event-stream", "last-event-id": state.lastEventId! });
    const response = await authorizedRequest(this.options.auth, this.url, { method: "GET", url: this.url, headers, signal, agent: this.agent });
    const status = response.statusCode ?? 0;
    if (status !== 200) {
      const body = await readBodySample(response);
      throw httpStatusError("GET (resume)", this.url, status, body, true);
    }
    return response;
  }

  /**
   * Reads one SSE response to its end. Resolves with the error if it broke, undefined if it ended.
   */
  private readStream(response: IncomingMessage, state: StreamState, onMessage?: (message: JsonRpcMessage) => void): Promise<Error | undefined> {
    const decoder = new SseDecoder({
      onEvent: (event) => {
        if (event.id !== undefined) {
          if (state.seen.has(event.id)) return; // replayed after a resume
          state.seen.add(event.id);
          state.lastEventId = event.id;
        }
        if (event.event !== undefined && event.event !== "message") return;
        if (event.data === "") return; // priming event: an id to resume from, no message
        const parsed = parseEventData(event);
        if (!parsed.ok) {
          this.sink?.error(parsed.error);
          return;
        }
        this.deliver(parsed.value, onMessage);
      },
      onRetry: (ms) => {
        state.retryMs = ms;
      },
      onError: (error) => this.sink?.error(error),
    });
    return new Promise<Error | undefined>((resolve) => {
      response.on("data", (chunk: Buffer) => decoder.push(chunk));
      response.once("end", () => resolve(undefined));
      response.once("error", (error) => resolve(error));
      response.once("aborted", () => resolve(new Error("connection lost")));
      response.once("close", () => resolve(response.complete ? undefined : new Error("connection closed")));
    });
  }

  private deliverJson(body: string): void {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (error) {
      this.sink?.error(new FramingError(`${this.url.href} sent a JSON response that does not parse: ${(error as Error).message}`, body.slice(0, 200)));
      return;
    }
    if (Array.isArray(value)) for (const item of value) this.deliver(item);
    else this.deliver(value);
  }

  private deliver(value: unknown, onMessage?: (message: JsonRpcMessage) => void): void {
    if (classifyMessage(value) === undefined) {
      this.sink?.error(new FramingError(`${this.url.href} sent JSON that is not a JSON-RPC 2.0 message; ignored`, JSON.stringify(value).slice(0, 200)));
      return;
    }
    onMessage?.(value as JsonRpcMessage);
    this.sink?.message(value as JsonRpcMessage);
  }

  /**
   * Opens the standalone GET stream for server-initiated messages (2025 era). Resolves false when the
   * server has none (405). Reconnects with Last-Event-ID when it drops, until close().
   */
  async openServerStream(): Promise<boolean> {
    const state: StreamState = { lastEventId: undefined, retryMs: undefined, seen: new Set() };
    const first = await this.getStream(state);
    if (first === undefined) return false;
    void this.keepServerStream(first, state);
    return true;
  }

  private async getStream(state: StreamState): Promise<IncomingMessage | undefined> {
    const exchange = new AbortController();
    this.inflight.add(exchange);
    const extra: Record<string, string> = { accept: "text/event-stream" };
    if (state.lastEventId !== undefined) extra["last-event-id"] = state.lastEventId;
    try {
      const response = await authorizedRequest(this.options.auth, this.url, { method: "GET", url: this.url, headers: this.headers(extra), signal: exchange.signal, agent: this.agent });
      const status = response.statusCode ?? 0;
      if (status === 405) {
        response.resume();
        this.inflight.delete(exchange);
        return undefined;
      }
      if (status !== 200) {
        const body = await readBodySample(response);
        this.inflight.delete(exchange);
        throw httpStatusError("GET", this.url, status, body, false);
      }
      response.once("close", () => this.inflight.delete(exchange));
      return response;
    } catch (error) {
      this.inflight.delete(exchange);
      throw error;
    }
  }

  private async keepServerStream(response: IncomingMessage, state: StreamState): Promise<void> {
    let attempts = 0;
    let current: IncomingMessage | undefined = response;
    while (!this.closed) {
      if (current) {
        await this.readStream(current, state);
        attempts = 0;
      }
      if (this.closed) return;
      if (attempts >= (this.options.maxResumeAttempts ?? 5)) {
        this.sink?.error(new TransportError(`The server-to-client event stream at ${this.url.href} could not be re-opened after ${attempts} attempts`, { url: this.url.href }));
        return;
      }
      await sleep(state.retryMs ?? this.backoff(attempts));
      attempts++;
      current = await this.getStream(state).catch((error: Error) => {
        this.sink?.error(error);
        return undefined;
      });
    }
  }

  private backoff(attempt: number): number {
    const { initialMs, maxMs } = this.options.resumeBackoff ?? { initialMs: 100, maxMs: 5000 };
    return Math.min(maxMs, initialMs * 2 ** attempt);
  }

  /** Every header but the per-request auth ones (sendWithAuth adds those). */
  private headers(extra: Record<string, string>): Record<string, string> {
    const headers: Record<string, string> = { ...this.fixedHeaders };
    if (this.sessionId !== undefined) headers["mcp-session-id"] = this.sessionId;
    if (this.protocolVersion !== undefined) headers["mcp-protocol-version"] = this.protocolVersion;
    // `extra` comes from this file and from the dialects, whose header names are lower case already.
    return Object.assign(headers, extra);
  }

  private captureSession(response: IncomingMessage): void {
    if (this.stateless) return;
    const id = headerValue(response, "mcp-session-id");
    if (id !== undefined && id !== "") this.sessionId = id;
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
    if (this.sessionId !== undefined) {
      // Tell the server it may forget the session. Bounded, and its failure changes nothing.
      await authorizedRequest(this.options.auth, this.url, { method: "DELETE", url: this.url, headers: this.headers({}), agent: this.agent, timeoutMs: this.options.deleteTimeoutMs ?? 2000 })
        .then((response) => response.resume())
        .catch(() => {});
      this.sessionId = undefined;
    }
    this.agent.destroy();
    const sink = this.sink;
    this.sink = undefined;
    sink?.close();
  }
}

function jsonRpcAnswer(body: string, requestId: JsonRpcId | undefined): JsonRpcMessage | undefined {
  if (requestId === undefined) return undefined;
  try {
    const value = JSON.parse(body) as { id?: unknown };
    if (classifyMessage(value) === "error" && value.id === requestId) return value as JsonRpcMessage;
  } catch {
    // Not JSON: an ordinary HTTP error.
  }
  return undefined;
}

function unlimitedController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}

