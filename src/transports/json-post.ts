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
import { collectBody, requestFailure, unusableJsonAnswer, type HttpRequestOptions } from "./http-client.js";
import type { Exchanges } from "./exchanges.js";
import type { HttpSession } from "./http-session.js";

/** What the fast path needs of its transport. */
export interface PostHost {
  readonly agent: Agent;
  readonly exchanges: Exchanges;
  /** Where requests go now (a redirect may move it). */
  readonly target: { readonly endpoint: URL };
  readonly maxMessageBytes: number;
  /** Aborted once close() began: a request it destroyed failed because of that. */
  readonly closing: AbortSignal;
  /** Its POST headers (`postHeaders()`, one object per session and protocol version) and session id. */
  readonly session: HttpSession;
  /** Delivers a JSON body's messages; says what is wrong when it holds no response to `id`. */
  deliverJson(body: string, id: JsonRpcId): string | undefined;
  /** Everything but a 200 with JSON: the transport's general handling of a POST's reply. */
  answer(response: IncomingMessage, id: JsonRpcId, request: HttpRequestOptions, resumable: boolean): Promise<void>;
}

type RequestArgs = { hostname: string; port: string; path: string; method: "POST"; headers: Record<string, string> | string[]; agent: Agent };

/**
 * The node:http options of a POST per shared headers object (http-session.ts makes a new one when the
 * session or the protocol version changes) and endpoint. The headers go as a flat list: node:http then
 * writes them as given, instead of validating and storing each through setHeader (its own list, an
 * array per header) on every request. The list ends with the content-length, set per request:
 * node:http reads the list while making the request, so the shared one is free again after.
 */
const cached = new WeakMap<Record<string, string>, { url: URL; args: RequestArgs }>();

function postArgs(shared: Record<string, string>, url: URL, agent: Agent): RequestArgs {
  const found = cached.get(shared);
  if (found !== undefined && found.url === url) return found.args;
  const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  // What node:http adds by itself for headers given as an object: Host (no port when it is the default).
  const list = "host" in shared ? [] : ["host", url.host];
  for (const [name, value] of Object.entries(shared)) if (name !== "content-length") list.push(name, value);
  list.push("content-length", "");
  const args: RequestArgs = { hostname, port: url.port, path: `${url.pathname}${url.search}`, method: "POST", headers: list, agent };
  cached.set(shared, { url, args });
  return args;
}

/**
 * POSTs request `id` (`body` is its JSON) and settles once its reply is handled. `extra` headers are
 * the 2026 era's per-request ones.
 */
export function postRequest(host: PostHost, id: JsonRpcId, body: string, extra: Record<string, string> | undefined, resumable: boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const url = host.target.endpoint;
    const shared = host.session.postHeaders();
    const length = String(Buffer.byteLength(body));
    let options: RequestArgs;
    if (extra === undefined) {
      options = postArgs(shared, url, host.agent);
      const list = options.headers as string[];
      list[list.length - 1] = length;
    } else {
      // The 2026 era's per-request headers: an object of its own (they may override shared names).
      options = { ...postArgs(shared, url, host.agent), headers: { ...shared, ...extra, "content-length": length } };
    }
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
          headers: { ...shared, ...extra },
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
      collectBody(response, host.maxMessageBytes, "POST", url, (error, text) => {
        if (error !== undefined) return fail(error);
        if (settled) return;
        settled = true;
        host.exchanges.finish(id);
        // The body is the answer: one without it fails the request now, not at its deadline.
        const problem = host.deliverJson(text, id);
        if (problem === undefined) resolve();
        else reject(unusableJsonAnswer("POST", url, 200, problem, text));
      });
    };
    const request: ClientRequest = (url.protocol === "https:" ? https : http).request(options, onResponse);
    host.exchanges.start(id, request);
    request.once("error", (error: NodeJS.ErrnoException) => fail(requestFailure("POST", url, error, host.closing.aborted)));
    request.end(body);
  });
}
