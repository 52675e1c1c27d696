/**
 * HTTP/1.1 on undici for the network transports: the one place a connection pool is made, and one
 * request ("exchange") driven through `Pool.dispatch` with a handler of our own. Measured here against
 * the raw responder (.scratch bench, 20,000 calls, 3 rounds): `dispatch` did 1.15-1.2x the calls per
 * second of `Pool.request` at concurrency 1 (no promise, no body stream, no abort signal per request),
 * `stream` sat between them. A reply is either collected whole (json-post.ts: the usual 200 with JSON)
 * or handed over as an `HttpResponse`, a Readable fed by the handler, for everything else (event
 * streams, errors, redirects): what the rest of the transport reads.
 */
import { Readable } from "node:stream";
import { Pool, util, type Dispatcher } from "undici";
import type { UrlPolicy } from "../auth/url-policy.js";

export type HttpHeaders = Record<string, string | string[] | undefined>;

/**
 * The pool of one origin. Every pool is made here (so a connection policy, a DNS `lookup` for the URL
 * policy, can be given in one place). Pipelining stays at 1: MCP requests are not idempotent, and a
 * POST queued behind another on a socket that breaks cannot be told apart from one that ran. No idle
 * timeouts by default: a POST's event stream or the GET stream may be quiet for minutes (node:http
 * had none either); a request that needs one passes `timeoutMs`.
 */
export function createPool(url: URL, connections = 64, policy?: UrlPolicy): Pool {
  // With a URL policy the pool's sockets resolve names through the policy's lookup (auth/url-policy.ts),
  // so the address checked is the address connected to.
  const pool = new Pool(url.origin, {
    connections,
    pipelining: 1,
    headersTimeout: 0,
    bodyTimeout: 0,
    ...(policy ? { connect: { lookup: policy.lookup } } : {}),
  });
  if (policy) policies.set(pool, policy);
  return pool;
}

/** The URL policy of each pool made with one: redirect hops are checked against it. */
const policies = new WeakMap<Dispatcher, UrlPolicy>();

export function policyOf(pool: Dispatcher): UrlPolicy | undefined {
  return policies.get(pool);
}

/** A response whose body is read as a stream: its status and headers, and whether the body came whole. */
export class HttpResponse extends Readable {
  /** Set once the whole body arrived (before "end"); false when it broke off. */
  complete = false;

  constructor(
    readonly statusCode: number,
    readonly headers: HttpHeaders,
    private readonly exchange: Exchange,
  ) {
    super();
  }

  override _read(): void {
    this.exchange.resumeBody();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Destroyed before its end: the socket goes with it (a body nobody reads must not hold it).
    if (!this.complete) this.exchange.abort(error ?? new Error("response destroyed"));
    callback(error);
  }
}

export interface ExchangeOptions {
  method: "GET" | "POST" | "DELETE";
  url: URL;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Give up when no headers, or no further body, arrive for this long (ms). */
  timeoutMs?: number | undefined;
}

/** Why an exchange was ended from our side (`destroy()`): the caller's failure handler hears it. */
export class ExchangeAbortedError extends Error {
  override readonly name = "ExchangeAbortedError";
  readonly code = "UND_ERR_ABORTED";
}

/**
 * One request. `response` hears the headers (as a streamed `HttpResponse`), `fail` a failure before
 * them, each at most once. Subclasses may collect a body instead (`headers` returning false).
 * `destroy()` ends it from our side at any point, with its socket once one carries it: the handle
 * `Exchanges` keeps, cheaper than an AbortSignal and its listener.
 */
export class Exchange implements Dispatcher.DispatchHandler {
  private abortRequest: ((error: Error) => void) | undefined;
  private resume: (() => void) | undefined;
  /** Set once the exchange ended (completed, failed or destroyed): later events are ignored. */
  protected ended = false;
  /** Set once undici is done with it (completed or failed): nothing left to abort. */
  private over = false;
  protected stream: HttpResponse | undefined;

  constructor(
    protected readonly onResponse: (response: HttpResponse) => void,
    protected readonly onFail: (error: Error) => void,
  ) {}

  /** Sends it on `pool`. */
  send(pool: Dispatcher, options: ExchangeOptions): this {
    if (this.ended) return this; // destroyed before it was sent
    const { url, method, headers, body, timeoutMs } = options;
    const dispatch: Dispatcher.DispatchOptions = { path: `${url.pathname}${url.search}`, method, headers, body: body ?? null };
    if (timeoutMs !== undefined) Object.assign(dispatch, { headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
    pool.dispatch(dispatch, this);
    return this;
  }

  /** Ends the exchange from our side: before its response it fails with ExchangeAbortedError. */
  destroy(): void {
    if (this.stream !== undefined) return void this.stream.destroy();
    if (this.ended) return;
    const error = new ExchangeAbortedError("request aborted");
    this.abort(error);
    // Still queued for a socket: no handler event comes until it gets one.
    this.failOnce(error);
  }

  abort(error: Error): void {
    if (this.over) return;
    if (this.abortRequest !== undefined) this.abortRequest(error);
    else this.pending = error;
  }

  /** A destroy() that came before the request was given a socket: it is dropped on arrival. */
  private pending: Error | undefined;

  resumeBody(): void {
    this.resume?.();
  }

  onConnect(abort: (error?: Error) => void): void {
    if (this.pending !== undefined) abort(this.pending);
    else this.abortRequest = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (this.ended) return false;
    if (!this.headers(statusCode, rawHeaders)) return true;
    const headers = util.parseHeaders(rawHeaders) as HttpHeaders;
    this.resume = resume;
    this.stream = new HttpResponse(statusCode, headers, this);
    this.ended = true;
    this.onResponse(this.stream);
    return true;
  }

  /** The status and raw headers of the response: true streams the body as an HttpResponse; false, a subclass collects it. */
  protected headers(_statusCode: number, _rawHeaders: Buffer[]): boolean {
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.stream !== undefined) return this.stream.push(chunk);
    this.data(chunk);
    return true;
  }

  /** A chunk of a collected body. */
  protected data(_chunk: Buffer): void {}

  onComplete(): void {
    this.over = true;
    const stream = this.stream;
    if (stream === undefined) return this.done();
    stream.complete = true;
    stream.push(null);
  }

  /** A collected body is whole. */
  protected done(): void {}

  onError(error: Error): void {
    this.over = true;
    const stream = this.stream;
    if (stream !== undefined) {
      // Broken mid-body: the reader sees "close" without `complete` (the connection was lost), and
      // the error only if it listens for one (as node:http's IncomingMessage does).
      if (!stream.destroyed) stream.destroy(stream.listenerCount("error") > 0 ? error : undefined);
      return;
    }
    this.failOnce(error);
  }

  protected failOnce(error: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.onFail(error);
  }
}

/**
 * The headers the fast path reads (type, length, session id), without decoding the rest: decoding
 * them all was 3% of a call with an SSE reply (profiled, concurrency 64). The first value of each.
 * Names are matched on their bytes, with no string made for a name that is not one of them.
 */
export function replyHeaders(raw: Buffer[]): HttpHeaders {
  const found: HttpHeaders = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    let key: string | undefined;
    if (name.length === 12) key = named(name, "content-type");
    else if (name.length === 14) key = named(name, "mcp-session-id") ?? named(name, "content-length");
    if (key !== undefined) found[key] ??= raw[i + 1]!.toString("latin1");
  }
  return found;
}

/**
 * `wanted` (lower case, of the same length) when `name` is it in any case. Setting bit 0x20 lower-cases
 * a letter and leaves `-` as it is; it could turn a control byte into `-`, but undici's parser admits
 * none in a header name.
 */
function named(name: Buffer, wanted: string): string | undefined {
  for (let i = 0; i < wanted.length; i++) if ((name[i]! | 0x20) !== wanted.charCodeAt(i)) return undefined;
  return wanted;
}

/** The first value of a header. */
export function firstValue(headers: HttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
