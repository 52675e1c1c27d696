/**
 * The HTTP plumbing the network transports share: requests over `node:http`/`node:https` with one
 * keep-alive agent per transport (measured here: the global fetch tops out near 2.3k req/s over
 * loopback, node:http with keep-alive at 6-7k), bounded body reads, and errors that name the URL, the
 * status and the start of the body.
 */
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { TransportError } from "../jsonrpc/errors.js";

export const BODY_SAMPLE_CHARS = 500;

export interface HttpRequestOptions {
  method: "GET" | "POST" | "DELETE";
  url: URL;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  agent: http.Agent;
  /** Give up waiting for response headers after this long (ms). */
  timeoutMs?: number;
}

export function createAgent(url: URL, maxSockets = 64): http.Agent {
  const options = { keepAlive: true, maxSockets, keepAliveMsecs: 1000 };
  return url.protocol === "https:" ? new https.Agent(options) : new http.Agent(options);
}

/** node:http options of a URL, computed once per URL object (converting it costs ~2% of a small request). */
const targets = new WeakMap<URL, { protocol: string; hostname: string; port: string; path: string }>();
function target(url: URL): { protocol: string; hostname: string; port: string; path: string } {
  let found = targets.get(url);
  if (found === undefined) {
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    found = { protocol: url.protocol, hostname, port: url.port, path: `${url.pathname}${url.search}` };
    targets.set(url, found);
  }
  return found;
}

/**
 * Sends a request; resolves with the response once its headers arrive. Connection errors name the URL.
 * `headers` is the caller's to give away: a content-length is added to it.
 */
export function httpRequest(options: HttpRequestOptions): Promise<IncomingMessage> {
  const { url, method, headers, body, signal, agent } = options;
  const lib = url.protocol === "https:" ? https : http;
  return new Promise<IncomingMessage>((resolve, reject) => {
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const request = lib.request({ ...target(url), method, headers, agent, signal });
    if (options.timeoutMs !== undefined) {
      request.setTimeout(options.timeoutMs, () => request.destroy(new Error(`no response headers within ${options.timeoutMs} ms`)));
    }
    request.once("response", resolve);
    request.once("error", (error: NodeJS.ErrnoException) => {
      if (signal?.aborted) {
        reject(new TransportError(`${method} ${url.href} aborted`, { cause: error, delivered: true, url: url.href, retryable: false }));
        return;
      }
      const refused = error.code === "ECONNREFUSED" || error.code === "ENOTFOUND" || error.code === "EAI_AGAIN";
      reject(
        new TransportError(`${method} ${url.href} failed: ${refused ? `connection refused (${error.code})` : error.message}`, {
          cause: error,
          url: url.href,
          // A refused connection never carried the request; anything later might have.
          delivered: !refused,
        }),
      );
    });
    if (body !== undefined) request.end(body);
    else request.end();
  });
}

/** Reads a whole body as text. Events, not `for await`: the async iterator costs ~10% of a small request. */
export function readBody(response: IncomingMessage): Promise<string> {
  response.setEncoding("utf8");
  return new Promise<string>((resolve, reject) => {
    let text = "";
    response.on("data", (chunk: string) => (text += chunk));
    response.once("end", () => resolve(text));
    response.once("error", reject);
    response.once("aborted", () => reject(new Error("the connection was lost while reading the response body")));
  });
}

/** Reads at most `limit` characters of a body, then drops the rest (for error messages). */
export async function readBodySample(response: IncomingMessage, limit = BODY_SAMPLE_CHARS): Promise<string> {
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

export function headerValue(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function httpStatusError(method: string, url: URL, status: number, body: string, delivered: boolean): TransportError {
  const what = STATUS_HINTS[status] ?? "";
  const sample = body.trim() === "" ? "" : `: ${body.trim()}`;
  return new TransportError(`${method} ${url.href} answered HTTP ${status}${what}${sample}`, {
    url: url.href,
    status,
    body,
    delivered,
    retryable: status !== 400 && status !== 422,
  });
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
