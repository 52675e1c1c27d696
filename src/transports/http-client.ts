/**
 * The HTTP plumbing the network transports share: requests on undici (undici-exchange.ts; measured
 * here: the global fetch tops out near 2.3k req/s over loopback, node:http with keep-alive at 6-7k, a
 * raw undici loop 1.1-1.6x that), body reads bounded by `maxMessageBytes`, same-origin redirects, and
 * errors that name the URL, the status and the start of the body.
 */
import type { Dispatcher } from "undici";
import { sampleOf } from "../framing/errors.js";
import { TransportError } from "../jsonrpc/errors.js";
import { classifyMessage, type JsonRpcId, type JsonRpcMessage } from "../jsonrpc/messages.js";
import { messageTooLarge } from "./message-limit.js";
import type { UrlPolicy } from "../auth/url-policy.js";
import { Exchange, ExchangeAbortedError, firstValue, policyOf, type HttpResponse } from "./undici-exchange.js";

export type { HttpResponse } from "./undici-exchange.js";
export { createPool, policyOf } from "./undici-exchange.js";

export const BODY_SAMPLE_CHARS = 500;

export interface HttpRequestOptions {
  method: "GET" | "POST" | "DELETE";
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** The origin's pool (createPool). */
  pool: Dispatcher;
  /** Give up after the socket has been idle this long (ms): no headers, or a body that stalls. */
  timeoutMs?: number;
  /** Called with the exchange as soon as it exists, so its owner can destroy it (abandon). */
  onRequest?: (request: Exchange) => void;
}

/**
 * Sends a request; resolves with the response once its headers arrive. Connection errors name the URL.
 * A `signal` ends the request, or the response's body once it streams.
 */
export function httpRequest(options: HttpRequestOptions): Promise<HttpResponse> {
  const { url, method, signal } = options;
  return new Promise<HttpResponse>((resolve, reject) => {
    const stop = () => exchange.destroy();
    const exchange = new Exchange(
      (response) => {
        if (signal !== undefined) response.once("close", () => signal.removeEventListener("abort", stop));
        resolve(response);
      },
      (error) => {
        signal?.removeEventListener("abort", stop);
        reject(requestFailure(method, url, timedOut(error, options.timeoutMs), signal?.aborted === true || error instanceof ExchangeAbortedError));
      },
    );
    if (signal !== undefined) {
      if (signal.aborted) return exchange.destroy();
      signal.addEventListener("abort", stop, { once: true });
    }
    options.onRequest?.(exchange);
    exchange.send(options.pool, options);
  });
}

/** undici's timeout errors, said as node:http's were (the idle time that ran out). */
function timedOut(error: NodeJS.ErrnoException, timeoutMs: number | undefined): NodeJS.ErrnoException {
  if (error.code !== "UND_ERR_HEADERS_TIMEOUT" && error.code !== "UND_ERR_BODY_TIMEOUT") return error;
  return Object.assign(new Error(`no response within ${timeoutMs} ms`, { cause: error }), { code: error.code });
}

/** The error of a request that failed before its response: `aborted` when we ended it (abort, close). */
export function requestFailure(method: string, url: URL, error: NodeJS.ErrnoException, aborted: boolean): TransportError {
  if (aborted) return new TransportError(`${method} ${url.href} aborted`, { cause: error, delivered: true, url: url.href, retryable: false });
  const refused = error.code === "ECONNREFUSED" || error.code === "ENOTFOUND" || error.code === "EAI_AGAIN" || error.code === "EURLPOLICY";
  return new TransportError(`${method} ${url.href} failed: ${refused ? `connection refused (${error.code})` : error.message}`, {
    cause: error,
    url: url.href,
    // A refused connection never carried the request; anything later might have.
    delivered: !refused,
  });
}

/**
 * Reads a whole body as text, at most `limit` bytes: a larger body (by its Content-Length, or by what
 * arrives) is cut off at once and fails with a `MessageTooLargeError` naming `method` and `url`.
 */
export function readBody(response: HttpResponse, limit: number, method: string, url: URL): Promise<string> {
  return new Promise<string>((resolve, reject) => collectBody(response, limit, method, url, (error, text) => (error ? reject(error) : resolve(text))));
}

/**
 * readBody without its promise, for the request path that settles with plain callbacks (json-post.ts).
 * `done` is called once: with the text, or with why there is none. Events, not `for await`: the async
 * iterator costs ~10% of a small request.
 */
export function collectBody(response: HttpResponse, limit: number, method: string, url: URL, done: (error: Error | undefined, text: string) => void): void {
  let settled = false;
  const finish = (error: Error | undefined, text: string) => {
    if (settled) return;
    settled = true;
    done(error, text);
  };
  const declared = Number(response.headers["content-length"]);
  // Failed before the response is destroyed: destroying emits errors of its own.
  if (declared > limit) {
    finish(messageTooLarge(`${method} ${url.href}`, declared, limit, { url: url.href }), "");
    response.destroy();
    return;
  }
  let first: Buffer | undefined;
  let more: Buffer[] | undefined;
  let bytes = 0;
  response.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > limit) {
      first = more = undefined;
      finish(messageTooLarge(`${method} ${url.href}`, bytes, limit, { url: url.href }), "");
      response.destroy();
    } else if (first === undefined) first = chunk;
    else (more ??= [first]).push(chunk);
  });
  response.once("end", () => finish(undefined, more ? Buffer.concat(more).toString("utf8") : first ? first.toString("utf8") : ""));
  response.once("error", (error) => finish(error, ""));
  // Destroyed mid-body (abandoned, closed, the connection lost): no "end" comes.
  response.once("close", () => {
    if (!response.complete) {
      finish(new TransportError(`${method} ${url.href}: the connection was lost while reading the response body`, { url: url.href, delivered: true }), "");
    }
  });
}

/** A 200 whose JSON body holds no usable response to the request it answers (`problem` says why). */
export function unusableJsonAnswer(method: string, url: URL, status: number, problem: string, body: string): TransportError {
  return new TransportError(`${method} ${url.href} answered HTTP ${status} with ${problem}`, { url: url.href, status, body: sampleOf(body), delivered: true });
}

/**
 * Lets go of a response whose body does not matter: read to its end (so the socket goes back to the
 * pool), unless it is, or says it will be, over 64 KiB: then it goes with its socket (a body that never
 * ends must not hold one).
 */
export function discard(response: HttpResponse): void {
  if (Number(response.headers["content-length"]) > DISCARD_LIMIT) return void response.destroy();
  let bytes = 0;
  response.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > DISCARD_LIMIT) response.destroy();
  });
  response.resume();
}

const DISCARD_LIMIT = 64 * 1024;

export const MAX_REDIRECTS = 5;

export function isRedirect(status: number | undefined): boolean {
  return status === 307 || status === 308 || status === 301 || status === 302 || status === 303;
}

/**
 * Follows the redirects `response` starts: 307 and 308 (method and body kept), and 301/302/303 for a
 * GET; at most MAX_REDIRECTS hops; only to the same origin, since every hop carries the request's
 * credentials (Authorization, session id, the caller's headers). Resolves with the final response and
 * the URL that gave it.
 */
export async function followRedirects(response: HttpResponse, options: HttpRequestOptions): Promise<{ response: HttpResponse; url: URL }> {
  let url = options.url;
  for (let hops = 1; isRedirect(response.statusCode); hops++) {
    await checkHop(response, url, policyOf(options.pool));
    const next = redirectTarget(options.method, options.url, url, response, hops);
    discard(response);
    url = next;
    response = await httpRequest({ ...options, url, headers: { ...options.headers } });
  }
  return { response, url };
}

/** `httpRequest`, then the redirects it starts; `moved` hears the final URL when it is not `options.url`. */
export async function httpExchange(options: HttpRequestOptions, moved: (url: URL) => void): Promise<HttpResponse> {
  const response = await httpRequest(options);
  if (!isRedirect(response.statusCode)) return response;
  const final = await followRedirects(response, options);
  moved(final.url);
  return final.response;
}

/** A redirect's target against the URL policy first, so a refusal names the policy's rule. */
async function checkHop(response: HttpResponse, from: URL, policy: UrlPolicy | undefined): Promise<void> {
  const location = policy && URL.canParse(headerValue(response, "location") ?? "", from.href) ? new URL(headerValue(response, "location")!, from) : undefined;
  if (location) await policy!.check(location, "server").catch((error: unknown) => (discard(response), Promise.reject(error)));
}

function redirectTarget(method: string, first: URL, from: URL, response: HttpResponse, hops: number): URL {
  const status = response.statusCode ?? 0;
  const refuse = (why: string) => {
    discard(response);
    return new TransportError(`${method} ${from.href} answered HTTP ${status}: ${why}`, { url: from.href, status, delivered: false, retryable: false });
  };
  const location = headerValue(response, "location");
  if (location === undefined || location === "") throw refuse("a redirect without a Location header");
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw refuse(`a redirect to ${JSON.stringify(location.slice(0, 200))}, which is not a URL`);
  }
  if (next.protocol !== "http:" && next.protocol !== "https:") throw refuse(`a redirect to ${next.protocol} (${next.href.slice(0, 200)}), not HTTP; refused`);
  if (next.origin !== first.origin) {
    throw refuse(
      `a redirect to ${next.href}, on another origin; refused, because following it would send this connection's credentials ` +
        `(Authorization, the session id, your headers) to a different server. If you trust it, use that URL instead.`,
    );
  }
  if (status !== 307 && status !== 308 && method !== "GET") {
    throw refuse(`a redirect to ${next.href} that would turn the ${method} into a GET; MCP needs 307 or 308 (method and body kept). Use that URL instead.`);
  }
  if (hops > MAX_REDIRECTS) throw refuse(`more than ${MAX_REDIRECTS} redirects (the last to ${next.href}); is there a redirect loop?`);
  return next;
}

/** Reads at most `limit` characters of a body, then drops the rest (for error messages). */
export async function readBodySample(response: HttpResponse, limit = BODY_SAMPLE_CHARS): Promise<string> {
  response.setEncoding("utf8");
  let text = "";
  try {
    for await (const chunk of response) {
      text += chunk as string;
      if (text.length > limit) {
        response.destroy();
        return `${text.slice(0, limit)}…`;
      }
    }
  } catch {
    // A body that breaks off still says what it said so far.
  }
  return text;
}

/** The JSON-RPC error answering `requestId` in an HTTP error body: the server's answer, not a transport failure. */
export function jsonRpcErrorIn(body: string, requestId: JsonRpcId | undefined): JsonRpcMessage | undefined {
  if (requestId === undefined) return undefined;
  try {
    const value = JSON.parse(body) as { id?: unknown };
    if (classifyMessage(value) === "error" && value.id === requestId) return value as JsonRpcMessage;
  } catch {
    // Not JSON: an ordinary HTTP error.
  }
  return undefined;
}

export function headerValue(response: { headers: HttpResponse["headers"] }, name: string): string | undefined {
  return firstValue(response.headers, name);
}

export function httpStatusError(method: string, url: URL, status: number, body: string, delivered: boolean, retryAfter?: string): TransportError {
  const what = STATUS_HINTS[status] ?? "";
  const sample = body.trim() === "" ? "" : `: ${body.trim()}`;
  const error = new TransportError(`${method} ${url.href} answered HTTP ${status}${what}${sample}`, {
    url: url.href,
    status,
    body,
    delivered,
    retryable: status !== 400 && status !== 422,
  });
  const waitMs = retryAfter === undefined ? undefined : retryAfterMs(retryAfter);
  if (waitMs !== undefined) error.retryAfterMs = waitMs;
  return error;
}

/** A Retry-After header (RFC 9110 §10.2.3: seconds, or an HTTP date) in ms; undefined when unreadable. */
export function retryAfterMs(value: string, now = Date.now()): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const STATUS_HINTS: Record<number, string> = {
  400: " (bad request)",
  401: " (unauthorized: check the token or headers)",
  403: " (forbidden: check the token, or the server's Origin rules)",
  404: " (not found: check the URL)",
  405: " (method not allowed)",
  406: " (not acceptable)",
  413: " (payload too large)",
  429: " (too many requests)",
  500: " (server error)",
  502: " (bad gateway)",
  503: " (service unavailable)",
  504: " (gateway timeout)",
};
