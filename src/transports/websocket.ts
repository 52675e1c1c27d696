/**
 * MCP over WebSocket (subprotocol `mcp`): one JSON-RPC message per text frame. A ping every
 * `pingIntervalMs` and a `pongTimeoutMs` deadline find dead peers that TCP would not report for
 * minutes; close codes become messages that say what happened.
 *
 * `maxMessageBytes` is ws's `maxPayload` (after decompression too): a larger frame is refused while it
 * arrives. A frame cannot be skipped and the stream resynchronised, so the connection closes (1009),
 * every pending request fails with an error naming the limit, and a supervisor reconnects.
 */
import WebSocket from "ws";
import { ConnectionClosedError, TransportError, type MessageTooLargeError } from "../jsonrpc/errors.js";
import type { JsonRpcMessage } from "../jsonrpc/messages.js";
import { decodeWsFrame, describeCloseCode, encodeWsFrame } from "../framing/websocket.js";
import type { IncomingMessage } from "node:http";
import { fixedHeaders, type AuthOption } from "./auth.js";
import { requestAuthHeaders, retryAfterRefusal } from "./http-auth.js";
import { DEFAULT_MAX_PENDING_WRITE_BYTES, messageLimit, messageTooLarge, notReading } from "./message-limit.js";
import { deliver } from "./deliver.js";
import { SENT, type SendOptions, type Transport, type TransportSink } from "./transport.js";
import type { UrlPolicy } from "../auth/url-policy.js";

export interface WebSocketOptions {
  url: string | URL;
  headers?: Record<string, string> | undefined;
  /** A bearer token, a function returning headers, or an AuthProvider such as oauth() (asked once per handshake). */
  auth?: AuthOption | undefined;
  /** Default 15000 ms; 0 turns keep-alive off. */
  pingIntervalMs?: number | undefined;
  /** Default 10000 ms. */
  pongTimeoutMs?: number | undefined;
  /** Default 10000 ms. */
  handshakeTimeoutMs?: number | undefined;
  /** The largest frame the server may send (default 16 MiB). */
  maxMessageBytes?: number | undefined;
  /** Which URLs may be fetched: the server's at start, and the handshake connection's address (auth/url-policy.ts). */
  urlPolicy?: UrlPolicy | undefined;
  /**
   * The most bytes that may wait to be sent while the peer does not read (default 32 MiB); past it,
   * sends fail at once with an `OverloadError` instead of piling up until their deadlines.
   */
  maxPendingWriteBytes?: number | undefined;
}

export class WebSocketTransport implements Transport {
  readonly kind = "websocket" as const;
  readonly url: URL;
  readonly identity: string;
  private socket: WebSocket | undefined;
  private sink: TransportSink | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private corked = false;
  private closed: Promise<void> | undefined;
  private readonly maxMessageBytes: number;
  /** Set when the server sent a frame over the limit: the reason the connection closes. */
  private tooLarge: MessageTooLargeError | undefined;

  constructor(private readonly options: WebSocketOptions) {
    this.url = new URL(options.url);
    this.identity = `ws:${this.url.origin}${this.url.pathname}`;
    this.maxMessageBytes = messageLimit(options.maxMessageBytes);
  }

  async start(sink: TransportSink): Promise<void> {
    this.sink = sink;
    await this.options.urlPolicy?.check(this.url, "config");
    // An AuthProvider may answer a refused upgrade (401/403) by authorizing; the handshake is then tried again.
    for (let round = 0; ; round++) {
      const auth = await requestAuthHeaders(this.options.auth, this.url, this.url, "GET");
      const headers = { ...fixedHeaders(this.options.headers, this.options.auth), ...auth };
      const refused = await this.handshake(headers);
      if (refused === undefined) return;
      if (!(await retryAfterRefusal(this.options.auth, refused.response, this.url, this.url, "GET", headers.authorization, round))) {
        refused.response.destroy();
        throw refused.error;
      }
    }
  }

  /** One upgrade attempt: resolves when open, or with the HTTP refusal; rejects on other failures. */
  private handshake(headers: Record<string, string>): Promise<{ response: IncomingMessage; error: TransportError } | undefined> {
    const socket = new WebSocket(this.url, "mcp", {
      headers,
      handshakeTimeout: this.options.handshakeTimeoutMs ?? 10_000,
      maxPayload: this.maxMessageBytes,
      ...(this.options.urlPolicy ? { lookup: this.options.urlPolicy.lookup } : {}),
    });
    this.socket = socket;
    return new Promise((resolve, reject) => {
      socket.once("unexpected-response", (_request, response) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        const redirect = location ? ` (a redirect to ${location}; connect to that URL instead: a handshake is not followed across redirects)` : "";
        // The refusal's headers are all an AuthProvider reads (start() decides whether to try again).
        resolve({
          response,
          error: new TransportError(`WebSocket handshake with ${this.url.href} failed: HTTP ${status}${redirect}`, {
            url: this.url.href,
            status,
            delivered: false,
          }),
        });
        socket.terminate();
      });
      // Before 'open' any error fails the connect (the promise ignores one after it settled).
      socket.once("error", (error) => {
        reject(new TransportError(`WebSocket connection to ${this.url.href} failed: ${error.message}`, { url: this.url.href, cause: error, delivered: false }));
      });
      socket.once("open", () => {
        if (socket.protocol !== "mcp") {
          reject(
            new TransportError(`${this.url.href} did not accept the "mcp" subprotocol (got "${socket.protocol}")`, { url: this.url.href, delivered: false }),
          );
          socket.terminate();
          return;
        }
        // Socket errors after the handshake are followed by 'close', which reports them; without a
        // listener, ws would throw them instead.
        socket.on("error", (error: Error & { code?: string }) => {
          if (error.code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH") {
            this.tooLarge = messageTooLarge(`WebSocket ${this.url.href}`, this.maxMessageBytes + 1, this.maxMessageBytes, { url: this.url.href, cause: error });
            this.sink?.error(this.tooLarge);
          } else this.sink?.error(error);
        });
        socket.on("message", (data, isBinary) => this.onFrame(data, isBinary));
        socket.on("pong", () => {
          clearTimeout(this.pongTimer);
          this.pongTimer = undefined;
        });
        socket.once("close", (code, reason) => this.onClose(code, reason.toString()));
        this.startKeepAlive();
        resolve(undefined);
      });
    });
  }

  private onFrame(data: WebSocket.RawData, isBinary: boolean): void {
    const decoded = decodeWsFrame(data, isBinary);
    if (!decoded.ok) return this.sink?.error(decoded.error);
    deliver(this.sink, decoded.value, `WebSocket ${this.url.href}`);
  }

  private startKeepAlive(): void {
    const interval = this.options.pingIntervalMs ?? 15_000;
    if (interval <= 0) return;
    this.pingTimer = setInterval(() => {
      const socket = this.socket;
      if (!socket || socket.readyState !== WebSocket.OPEN) return;
      // A ping is still unanswered: its deadline stands (re-arming it would let a dead peer live forever
      // whenever the interval is shorter than the timeout).
      if (this.pongTimer !== undefined) return;
      socket.ping();
      this.pongTimer = setTimeout(() => {
        this.sink?.error(
          new TransportError(`${this.url.href} did not answer a ping within ${this.options.pongTimeoutMs ?? 10_000} ms; dropping the connection`, {
            url: this.url.href,
          }),
        );
        socket.terminate();
      }, this.options.pongTimeoutMs ?? 10_000);
    }, interval);
  }

  private stopKeepAlive(): void {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
    this.pingTimer = undefined;
    this.pongTimer = undefined;
  }

  private onClose(code: number, reason: string): void {
    this.stopKeepAlive();
    const sink = this.sink;
    this.sink = undefined;
    if (this.closing) {
      sink?.close();
      return;
    }
    if (this.tooLarge) {
      sink?.close(
        new ConnectionClosedError(`${this.tooLarge.message} The connection was closed (a frame cannot be skipped).`, {
          url: this.url.href,
          delivered: true,
          cause: this.tooLarge,
        }),
      );
      return;
    }
    sink?.close(new ConnectionClosedError(`WebSocket ${this.url.href}: ${describeCloseCode(code, reason)}`, { url: this.url.href, delivered: true }));
  }

  send(message: JsonRpcMessage, _options?: SendOptions): Promise<void> {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ConnectionClosedError(`WebSocket ${this.url.href} is not open; message not sent`, { url: this.url.href, delivered: false }));
    }
    const limit = this.options.maxPendingWriteBytes ?? DEFAULT_MAX_PENDING_WRITE_BYTES;
    if (socket.bufferedAmount > limit) return Promise.reject(notReading(`WebSocket peer ${this.url.href}`, socket.bufferedAmount, limit));
    this.corkUntilTickEnds(socket);
    socket.send(encodeWsFrame(message));
    return SENT;
  }

  /**
   * Frames sent in one tick leave in one write: without it, 64 concurrent calls cost 64 syscalls, the
   * largest part of a request's cost here (the stdio transport batches for the same reason).
   */
  private corkUntilTickEnds(socket: WebSocket): void {
    if (this.corked) return;
    const raw = (socket as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (!raw) return;
    this.corked = true;
    raw.cork();
    process.nextTick(() => {
      this.corked = false;
      raw.uncork();
    });
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.closing = true;
      this.stopKeepAlive();
      const socket = this.socket;
      if (!socket || socket.readyState === WebSocket.CLOSED) {
        const sink = this.sink;
        this.sink = undefined;
        sink?.close();
        resolve();
        return;
      }
      const timer = setTimeout(() => socket.terminate(), 2000);
      socket.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
      socket.close(1000, "client closing");
    });
    return this.closed;
  }
}
