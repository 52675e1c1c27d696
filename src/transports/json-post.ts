/**
 * The usual Streamable HTTP request, made cheap: a POST whose reply is 200 with one JSON body. It costs
 * one promise and one undici handler (undici-exchange.ts) that collects the body as it comes (the
 * general path awaited a promise for the headers and another for the body, inside two async functions:
 * profiled at concurrency 64, its allocations were most of the client's garbage collection). It takes
 * no abort signal: the handler is kept in `Exchanges` instead, which is how a timeout or a cancellation
 * (`abandon`) and the transport's close() end it with its socket.
 *
 * Any other reply (SSE, 202, an error status, a redirect) is streamed and goes back to the transport's
 * general handling (`PostHost.answer`), unchanged.
 */
import type { Dispatcher } from "undici";
import { TransportError } from "../jsonrpc/errors.js";
import type { JsonRpcId } from "../jsonrpc/messages.js";
import { requestFailure, unusableJsonAnswer, type HttpRequestOptions, type HttpResponse } from "./http-client.js";
import type { Exchanges } from "./exchanges.js";
import type { HttpSession } from "./http-session.js";
import { messageTooLarge } from "./message-limit.js";
import { answers } from "./deliver.js";
import { deliveringFor } from "../util/request-context.js";
import { EventRead, StreamCursor, type EventSettings } from "./sse-reader.js";
import { Exchange, ExchangeAbortedError, firstValue, replyHeaders, type HttpHeaders } from "./undici-exchange.js";

/** What the fast path needs of its transport. */
export interface PostHost {
  readonly pool: Dispatcher;
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
  /** Everything but a 200 with JSON or events: the transport's general handling of a POST's reply. */
  answer(response: HttpResponse, id: JsonRpcId, request: HttpRequestOptions, resumable: boolean): Promise<void>;
  /** What its event streams share: the limit, how to warn, the oversize error (sse-reader.ts). */
  eventSettings(): EventSettings;
  /** Delivers one event's value; true when it was a JSON-RPC message. */
  deliverEvent(value: unknown): boolean;
  /** An event stream read to its end that did not finish its job: resumes it, or fails with why not. */
  resumeReply(read: EventRead, id: JsonRpcId, resumable: boolean, answered: boolean): Promise<void>;
}

/**
 * POSTs request `id` (`body` is its JSON) and settles once its reply is handled. `extra` headers are
 * the 2026 era's per-request ones.
 */
export function postRequest(host: PostHost, id: JsonRpcId, body: string, extra: Record<string, string> | undefined, resumable: boolean): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const url = host.target.endpoint;
    const shared = host.session.postHeaders();
    // The shared headers go as they are: undici copies what it sends, and sets Host and Content-Length.
    const headers = extra === undefined ? shared : { ...shared, ...extra };
    const post = new JsonPost(host, id, url, resumable, resolve, reject, (response) => {
      const sent: HttpRequestOptions = { method: "POST", url, headers, body, pool: host.pool, onRequest: (next) => host.exchanges.keep(id, next) };
      host.answer(response, id, sent, resumable).then(
        () => (host.exchanges.finish(id), resolve()),
        (error: unknown) => (host.exchanges.finish(id), reject(error)),
      );
    });
    host.exchanges.start(id, post);
    post.send(host.pool, { method: "POST", url, headers, body });
  });
}

/**
 * The handler of one POST: collects a 200 JSON body, decodes a 200 event stream as it comes (its
 * events are delivered at once; one that ends before its response goes on to `PostHost.resumeReply`),
 * and streams any other reply to `other`.
 */
class JsonPost extends Exchange {
  private first: Buffer | undefined;
  private more: Buffer[] | undefined;
  private bytes = 0;
  /** The body is being collected: a failure now is a body broken off, not a request that never went. */
  private collecting = false;
  /** A 200 event stream's decoder, and whether it delivered the response to `id`. */
  private events: EventRead | undefined;
  private answered = false;

  constructor(
    private readonly host: PostHost,
    private readonly id: JsonRpcId,
    private readonly url: URL,
    private readonly resumable: boolean,
    private readonly resolve: () => void,
    private readonly reject: (error: unknown) => void,
    other: (response: HttpResponse) => void,
  ) {
    super(other, (error) => this.failed(error));
  }

  protected override headers(statusCode: number, rawHeaders: Buffer[]): boolean {
    if (statusCode !== 200) return true;
    const headers = replyHeaders(rawHeaders);
    const type = firstValue(headers, "content-type");
    if (type === undefined) return true;
    if (type.includes("text/event-stream")) return this.eventStream(headers);
    if (!type.includes("application/json")) return true;
    this.host.session.capture({ headers });
    this.collecting = true;
    const declared = Number(firstValue(headers, "content-length"));
    if (declared > this.host.maxMessageBytes) this.tooLarge(declared);
    return false;
  }

  private eventStream(headers: HttpHeaders): false {
    const { host, id } = this;
    host.session.capture({ headers });
    // Delivered as the request's: a server request or log on this stream was caused by it.
    const deliver = deliveringFor(id)((value: unknown) => {
      if (host.deliverEvent(value) && answers(value, id)) this.answered = true;
    });
    this.events = new EventRead(host.eventSettings(), new StreamCursor(), true, deliver, () => this.abort(new ExchangeAbortedError("an event over the limit")));
    return false;
  }

  /** The event stream ended (`broken`: it broke off): done when it answered, else resumed or failed by the transport. */
  private eventsEnded(events: EventRead, broken: Error | undefined): void {
    this.ended = true;
    const { host, id } = this;
    const outcome = events.finish(broken);
    if (this.answered && outcome.oversize === undefined) {
      host.exchanges.finish(id);
      return this.resolve();
    }
    host.resumeReply(events, id, this.resumable, this.answered).then(
      () => (host.exchanges.finish(id), this.resolve()),
      (error: unknown) => (host.exchanges.finish(id), this.reject(error)),
    );
  }

  protected override data(chunk: Buffer): void {
    if (this.events !== undefined) return this.events.push(chunk);
    if (this.ended) return;
    this.bytes += chunk.length;
    if (this.bytes > this.host.maxMessageBytes) this.tooLarge(this.bytes);
    else if (this.first === undefined) this.first = chunk;
    else (this.more ??= [this.first]).push(chunk);
  }

  /** Fails the request and drops the socket: a body over the limit is not read on. */
  private tooLarge(bytes: number): void {
    this.first = this.more = undefined;
    const { url, host } = this;
    this.failOnce(messageTooLarge(`POST ${url.href}`, bytes, host.maxMessageBytes, { url: url.href }));
    this.abort(new ExchangeAbortedError("response body over the limit"));
  }

  protected override done(): void {
    if (this.events !== undefined) return this.eventsEnded(this.events, undefined);
    if (this.ended) return;
    this.ended = true;
    const { host, id, url, first, more } = this;
    const text = more ? Buffer.concat(more).toString("utf8") : first ? first.toString("utf8") : "";
    host.exchanges.finish(id);
    // The body is the answer: one without it fails the request now, not at its deadline.
    const problem = host.deliverJson(text, id);
    if (problem === undefined) this.resolve();
    else this.reject(unusableJsonAnswer("POST", url, 200, problem, text));
  }

  private failed(error: Error): void {
    if (this.events !== undefined) return this.eventsEnded(this.events, error);
    const { host, id, url } = this;
    host.exchanges.finish(id);
    if (error instanceof TransportError) return this.reject(error);
    const aborted = host.closing.aborted || error instanceof ExchangeAbortedError;
    if (this.collecting && !aborted) {
      return this.reject(
        new TransportError(`POST ${url.href}: the connection was lost while reading the response body`, { url: url.href, delivered: true, cause: error }),
      );
    }
    this.reject(requestFailure("POST", url, error, aborted));
  }
}
