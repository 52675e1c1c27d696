/**
 * The usual Streamable HTTP request, made cheap: a POST whose reply is 200 with one JSON body. It costs
 * one promise and a few plain callbacks (the general path in streamable-http.ts awaited a promise for
 * the headers and another for the body, inside two async functions: profiled at concurrency 64, its
 * allocations were most of the client's garbage collection). It takes no abort signal: node:http puts
 * an abort listener on every request that has one. The request is kept in `Exchanges` instead, which is
 * how a timeout or a cancellation (`abandon`) and the transport's close() end it with its socket.
 *
 * Any other reply (SSE, 202, an error status, a redirect) goes back to the transport's general handling
 * (`PostHost.answer`), unchanged.
 */
import http, { type Agent, type ClientRequest, type IncomingMessage } from "node:http";
import https from "node:https";
import type { JsonRpcId } from "../jsonrpc/messages.js";
import { sampleOf } from "../framing/errors.js";
import { TransportError } from "../jsonrpc/errors.js";
import { requestFailure, type HttpRequestOptions } from "./http-client.js";
import type { Exchanges } from "./exchanges.js";
import type { HttpSession } from "./http-session.js";
import { messageTooLarge } from "./message-limit.js";

/** What the fast path needs of its transport. */
export interface PostHost {
  readonly agent: Agent;
  readonly exchanges: Exchanges;
  /** Where requests go now (a redirect may move it). */
  readonly target: { readonly endpoint: URL };
  readonly maxMessageBytes: number;
  /** Aborted once close() began: a request it destroyed failed because of that. */
  readonly closing: AbortSignal;
  /** Its POST headers (`postHeaders()`, a shared object: content-length is set on it per request) and session id. */
  readonly session: HttpSession;
  /** Delivers a JSON body's messages; says what is wrong when it holds no response to `id`. */
  deliverJson(body: string, id: JsonRpcId): string | undefined;
  /** Everything but a 200 with JSON: the transport's general handling of a POST's reply. */
  answer(response: IncomingMessage, id: JsonRpcId, request: HttpRequestOptions, resumable: boolean): Promise<void>;
}

/** node:http request options per endpoint URL object, with the host's headers object. */
const targets = new WeakMap<URL, { hostname: string; port: string; path: string }>();

function target(url: URL): { hostname: string; port: string; path: string } {
  let found = targets.get(url);
  if (found === undefined) {
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    found = { hostname, port: url.port, path: `${url.pathname}${url.search}` };
    targets.set(url, found);
  }
  return found;
}

/**
 * POSTs request `id` (`body` is its JSON) and settles once its reply is handled. `extra` headers (the
 * 2026 era's per-request ones) make a headers object of their own.
 */
export function postRequest(host: PostHost, id: JsonRpcId, body: string, extra: Record<string, string> | undefined, resumable: boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const url = host.target.endpoint;
    const shared = host.session.postHeaders();
    const headers = extra === undefined ? shared : { ...shared, ...extra };
    // node:http copies the headers while making the request: the shared object is free again after.
    headers["content-length"] = String(Buffer.byteLength(body));
    const { hostname, port, path } = target(url);
    const options = { hostname, port, path, method: "POST", headers, agent: host.agent };
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      host.exchanges.finish(id);
      reject(error);
    };
    const onResponse = (response: IncomingMessage) => {
      const type = response.headers["content-type"];
      if (response.statusCode !== 200 || type === undefined || !type.includes("application/json")) {
        settled = true;
        const sent: HttpRequestOptions = {
          method: "POST",
          url,
          headers: { ...headers },
          body,
          agent: host.agent,
          onRequest: (next) => host.exchanges.keep(id, next),
        };
        host.answer(response, id, sent, resumable).then(
          () => (host.exchanges.finish(id), resolve()),
          (error: unknown) => (host.exchanges.finish(id), reject(error)),
        );
        return;
      }
      host.session.capture(response);
      const limit = host.maxMessageBytes;
      if (Number(response.headers["content-length"]) > limit) {
        fail(messageTooLarge(`POST ${url.href}`, Number(response.headers["content-length"]), limit, { url: url.href }));
        return void response.destroy();
      }
      let first: Buffer | undefined;
      let more: Buffer[] | undefined;
      let bytes = 0;
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= limit) {
          if (first === undefined) first = chunk;
          else (more ??= [first]).push(chunk);
          return;
        }
        first = more = undefined;
        fail(messageTooLarge(`POST ${url.href}`, bytes, limit, { url: url.href }));
        response.destroy();
      });
      response.once("end", () => {
        if (settled) return;
        settled = true;
        host.exchanges.finish(id);
        // The body is the answer: one without it fails the request now, not at its deadline.
        const text = more ? Buffer.concat(more).toString("utf8") : first ? first.toString("utf8") : "";
        const problem = host.deliverJson(text, id);
        if (problem === undefined) return resolve();
        reject(new TransportError(`POST ${url.href} answered HTTP 200 with ${problem}`, { url: url.href, status: 200, body: sampleOf(text), delivered: true }));
      });
      // Destroyed mid-body (abandoned, closed, the connection lost): no "end" comes.
      response.once("close", () => {
        if (!response.complete) fail(new Error("the connection was lost while reading the response body"));
      });
    };
    const request: ClientRequest = (url.protocol === "https:" ? https : http).request(options, onResponse);
    host.exchanges.start(id, request);
    request.once("error", (error: NodeJS.ErrnoException) => fail(requestFailure("POST", url, error, host.closing.aborted)));
    request.end(body);
  });
}
