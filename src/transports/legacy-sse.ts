/**
 * The deprecated HTTP+SSE transport (protocol 2024-11-05): GET opens an event stream whose first
 * `endpoint` event names the URL to POST messages to; every reply comes back on the stream.
 *
 * The stream carries every request's reply, so an event over `maxMessageBytes` cannot be tied to one
 * request: it is skipped with an error event, the stream goes on, and the request it answered fails at
 * its deadline. The stream has no resumption: when it ends, the connection is lost.
 */
import type { Pool } from "undici";
import { ConnectionClosedError, TransportError } from "../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage } from "../jsonrpc/messages.js";
import { OversizeFrameError } from "../framing/oversize.js";
import { SseDecoder, parseEventData } from "../framing/sse.js";
import { fixedHeaders, type AuthOption } from "./auth.js";
import { authorizedRequest } from "./http-auth.js";
import { createPool, discard, httpStatusError, readBodySample, type HttpRequestOptions, type HttpResponse } from "./http-client.js";
import { Exchanges } from "./exchanges.js";
import { messageLimit, messageTooLarge } from "./message-limit.js";
import { deliver } from "./deliver.js";
import { requestIdOf, type SendOptions, type Transport, type TransportSink } from "./transport.js";
import type { UrlPolicy } from "../auth/url-policy.js";

export interface LegacySseOptions {
  url: string | URL;
  headers?: Record<string, string> | undefined;
  /** A bearer token, a function returning headers (called for each request), or an AuthProvider such as oauth(). */
  auth?: AuthOption | undefined;
  /** How long to wait for the stream's headers and its `endpoint` event (default 10000 ms). */
  endpointTimeoutMs?: number | undefined;
  /** The largest event the server may send (default 16 MiB). */
  maxMessageBytes?: number | undefined;
  /** Which URLs may be fetched: the server's, its redirects, its endpoint event (auth/url-policy.ts). */
  urlPolicy?: UrlPolicy | undefined;
}

export class LegacySseTransport implements Transport {
  readonly kind = "sse" as const;
  readonly url: URL;
  readonly identity: string;
  private endpoint: URL | undefined;
  private sink: TransportSink | undefined;
  private readonly pool: Pool;
  private readonly maxMessageBytes: number;
  private stream: HttpResponse | undefined;
  /** The POST of each request still waiting for its 202, so `abandon` can drop it with its socket. */
  private readonly exchanges = new Exchanges();
  private readonly streamAbort = new AbortController();
  private closed = false;

  constructor(private readonly options: LegacySseOptions) {
    this.url = new URL(options.url);
    this.identity = `sse:${this.url.origin}${this.url.pathname}`;
    this.pool = createPool(this.url, undefined, options.urlPolicy);
    this.maxMessageBytes = messageLimit(options.maxMessageBytes);
  }

  async start(sink: TransportSink): Promise<void> {
    this.sink = sink;
    const timeoutMs = this.options.endpointTimeoutMs ?? 10_000;
    let timer: NodeJS.Timeout | undefined;
    // One deadline for the headers and the endpoint event: a server that accepts the connection and
    // says nothing must not hold connect() forever.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new TransportError(`${this.url.href} sent no "endpoint" event within ${timeoutMs} ms; is this an HTTP+SSE (2024-11-05) server?`, {
            url: this.url.href,
            delivered: false,
          }),
        );
        this.streamAbort.abort();
      }, timeoutMs);
    });
    deadline.catch(() => {});
    try {
      await Promise.race([this.open(), deadline]);
    } catch (error) {
      this.closed = true; // a failed start is reported by its rejection, not as a lost stream too
      this.streamAbort.abort();
      await this.pool.destroy();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  private async open(): Promise<void> {
    await this.options.urlPolicy?.check(this.url, "config");
    const request: HttpRequestOptions = {
      method: "GET",
      url: this.url,
      headers: { ...fixedHeaders(this.options.headers, this.options.auth), accept: "text/event-stream" },
      signal: this.streamAbort.signal,
      pool: this.pool,
    };
    let streamUrl = this.url;
    const response = await authorizedRequest(this.options.auth, this.url, request, (url) => (streamUrl = url));
    if (response.statusCode !== 200) {
      const body = await readBodySample(response);
      throw httpStatusError("GET", streamUrl, response.statusCode, body, false);
    }
    this.stream = response;
    await new Promise<void>((resolve, reject) => {
      const decoder = new SseDecoder({
        maxMessageBytes: this.maxMessageBytes,
        onEvent: (event) => {
          if (event.event === "endpoint") {
            const endpoint = new URL(event.data.trim(), streamUrl);
            if (endpoint.origin !== this.url.origin) {
              reject(
                new TransportError(`${this.url.href} named an endpoint on another origin (${endpoint.origin}); refused`, {
                  url: this.url.href,
                  delivered: false,
                }),
              );
              return;
            }
            const policy = this.options.urlPolicy;
            if (policy === undefined) return void ((this.endpoint = endpoint), resolve());
            policy.check(endpoint, "server").then(() => ((this.endpoint = endpoint), resolve()), reject);
            return;
          }
          if (event.event !== undefined && event.event !== "message") return;
          const parsed = parseEventData(event);
          if (!parsed.ok) return this.sink?.error(parsed.error);
          deliver(this.sink, parsed.value, `The event stream at ${this.url.href}`);
        },
        onError: (error) => {
          if (error instanceof OversizeFrameError) {
            this.sink?.error(messageTooLarge(`The event stream at ${this.url.href}`, error.bytes, error.limit, { url: this.url.href }));
          } else this.sink?.error(error);
        },
      });
      response.on("data", (chunk: Buffer) => decoder.push(chunk));
      const ended = () => {
        reject(new TransportError(`${this.url.href} closed the event stream before sending the endpoint`, { url: this.url.href, delivered: false }));
        this.lost();
      };
      response.once("end", ended);
      response.once("error", ended);
      // Broken off (destroyed, the connection lost): "close" without "end".
      response.once("close", ended);
    });
  }

  private lost(): void {
    if (this.closed) return;
    this.closed = true;
    void this.pool.destroy();
    const sink = this.sink;
    this.sink = undefined;
    sink?.close(new ConnectionClosedError(`The event stream from ${this.url.href} ended`, { url: this.url.href, delivered: true }));
  }

  /** A request that timed out or was cancelled: its POST, if the server still sits on it, goes with its socket. */
  abandon(id: JsonRpcId): void {
    this.exchanges.abandon(id);
  }

  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
    if (this.closed || !this.endpoint) throw new ConnectionClosedError(`Transport to ${this.url.href} is closed`, { delivered: false });
    const id = requestIdOf(message);
    if (id !== undefined) this.exchanges.open(id);
    try {
      await this.post(message, options, id, this.endpoint);
    } finally {
      if (id !== undefined) this.exchanges.finish(id);
    }
  }

  private async post(message: JsonRpcMessage, options: SendOptions, id: JsonRpcId | undefined, endpoint: URL): Promise<void> {
    const request: HttpRequestOptions = {
      method: "POST",
      url: endpoint,
      headers: { ...fixedHeaders(this.options.headers, this.options.auth), ...options.headers, "content-type": "application/json" },
      body: JSON.stringify(message),
      pool: this.pool,
    };
    if (options.signal !== undefined) request.signal = options.signal;
    if (id !== undefined) request.onRequest = (http) => this.exchanges.keep(id, http);
    const response = await authorizedRequest(this.options.auth, this.url, request, (url) => (this.endpoint = url));
    const status = response.statusCode ?? 0;
    if (status >= 400) throw httpStatusError("POST", request.url, status, await readBodySample(response), status >= 500);
    discard(response);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.streamAbort.abort();
    this.stream?.destroy();
    this.exchanges.abandonAll();
    await this.pool.destroy();
    const sink = this.sink;
    this.sink = undefined;
    sink?.close();
  }
}
