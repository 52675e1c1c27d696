/**
 * The deprecated HTTP+SSE transport (protocol 2024-11-05): GET opens an event stream whose first
 * `endpoint` event names the URL to POST messages to; every reply comes back on the stream.
 */
import type { Agent, IncomingMessage } from "node:http";
import { ConnectionClosedError, TransportError } from "../jsonrpc/errors.js";
import { classifyMessage, type JsonRpcMessage } from "../jsonrpc/messages.js";
import { FramingError } from "../framing/errors.js";
import { SseDecoder, parseEventData } from "../framing/sse.js";
import { fixedHeaders, type AuthOption } from "./auth.js";
import { authorizedRequest } from "./http-auth.js";
import { createAgent, httpRequest, httpStatusError, readBodySample } from "./http-client.js";
import type { SendOptions, Transport, TransportSink } from "./transport.js";

export interface LegacySseOptions {
  url: string | URL;
  headers?: Record<string, string>;
  /** A bearer token, a function returning headers (called for each request), or an AuthProvider such as oauth(). */
  auth?: AuthOption;
  /** How long to wait for the `endpoint` event (default 10000 ms). */
  endpointTimeoutMs?: number;
}

export class LegacySseTransport implements Transport {
  readonly kind = "sse" as const;
  readonly url: URL;
  readonly identity: string;
  private endpoint: URL | undefined;
  private sink: TransportSink | undefined;
  private readonly agent: Agent;
  private stream: IncomingMessage | undefined;
  private readonly streamAbort = new AbortController();
  private closed = false;

  constructor(private readonly options: LegacySseOptions) {
    this.url = new URL(options.url);
    this.identity = `sse:${this.url.origin}${this.url.pathname}`;
    this.agent = createAgent(this.url);
  }

  async start(sink: TransportSink): Promise<void> {
    this.sink = sink;
    const response = await authorizedRequest(this.options.auth, this.url, {
      method: "GET",
      url: this.url,
      headers: { ...fixedHeaders(this.options.headers, this.options.auth), accept: "text/event-stream" },
      signal: this.streamAbort.signal,
      agent: this.agent,
    });
    if (response.statusCode !== 200) {
      const body = await readBodySample(response);
      this.agent.destroy();
      throw httpStatusError("GET", this.url, response.statusCode ?? 0, body, false);
    }
    this.stream = response;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new TransportError(`${this.url.href} sent no "endpoint" event within ${this.options.endpointTimeoutMs ?? 10_000} ms; is this an HTTP+SSE (2024-11-05) server?`, { url: this.url.href, delivered: false }));
        this.streamAbort.abort();
      }, this.options.endpointTimeoutMs ?? 10_000);
      const decoder = new SseDecoder({
        onEvent: (event) => {
          if (event.event === "endpoint") {
            const endpoint = new URL(event.data.trim(), this.url);
            if (endpoint.origin !== this.url.origin) {
              clearTimeout(timer);
              reject(new TransportError(`${this.url.href} named an endpoint on another origin (${endpoint.origin}); refused`, { url: this.url.href, delivered: false }));
              this.streamAbort.abort();
              return;
            }
            this.endpoint = endpoint;
            clearTimeout(timer);
            resolve();
            return;
          }
          if (event.event !== undefined && event.event !== "message") return;
          const parsed = parseEventData(event);
          if (!parsed.ok) return this.sink?.error(parsed.error);
          if (classifyMessage(parsed.value) === undefined) {
            return this.sink?.error(new FramingError("Event data is not a JSON-RPC 2.0 message; ignored", event.data.slice(0, 200)));
          }
          this.sink?.message(parsed.value as JsonRpcMessage);
        },
        onError: (error) => this.sink?.error(error),
      });
      response.on("data", (chunk: Buffer) => decoder.push(chunk));
      const ended = () => {
        clearTimeout(timer);
        reject(new TransportError(`${this.url.href} closed the event stream before sending the endpoint`, { url: this.url.href, delivered: false }));
        this.lost();
      };
      response.once("end", ended);
      response.once("error", ended);
    });
  }

  private lost(): void {
    if (this.closed) return;
    this.closed = true;
    this.agent.destroy();
    const sink = this.sink;
    this.sink = undefined;
    sink?.close(new ConnectionClosedError(`The event stream from ${this.url.href} ended`, { url: this.url.href, delivered: true }));
  }

  async send(message: JsonRpcMessage, options: SendOptions = {}): Promise<void> {
    if (this.closed || !this.endpoint) throw new ConnectionClosedError(`Transport to ${this.url.href} is closed`, { delivered: false });
    const response = await authorizedRequest(this.options.auth, this.url, {
      method: "POST",
      url: this.endpoint,
      headers: { ...fixedHeaders(this.options.headers, this.options.auth), ...options.headers, "content-type": "application/json" },
      body: JSON.stringify(message),
      signal: options.signal,
      agent: this.agent,
    });
    const status = response.statusCode ?? 0;
    if (status >= 400) throw httpStatusError("POST", this.endpoint, status, await readBodySample(response), status >= 500);
    response.resume();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.streamAbort.abort();
    this.stream?.destroy();
    this.agent.destroy();
    const sink = this.sink;
    this.sink = undefined;
    sink?.close();
  }
}
