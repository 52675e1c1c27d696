/**
 * `subscriptions/listen` (2026-07-28): one long-lived request whose stream carries the change
 * notifications the client opted into. The server acknowledges first with the filter it will honour;
 * every notification on the stream names the listen's request id as its subscription id.
 *
 * A `Subscription` outlives the streams under it: when a stream drops (or the server cancels it), it
 * listens again with backoff; it ends for good when closed, when the server ends it gracefully, or
 * after `maxRelistens` failed attempts.
 */
import { EventEmitter } from "eventemitter3";
import { ErrorCode } from "../../jsonrpc/codes.js";
import { McpError, ProtocolError, RequestCancelledError } from "../../jsonrpc/errors.js";
import type { JsonRpcId } from "../../jsonrpc/messages.js";
import type { SendOptions } from "../../transports/transport.js";
import type { Params, Result, Wire } from "./dialect.js";
import { backoffBase } from "../../util/backoff.js";
import { asError } from "../../util/guards.js";
import { MAX_TIMER_MS, clamp, timerFor } from "../../util/timers.js";

export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks extension. */
  taskIds?: string[];
}

const DEFAULT_RELISTEN_BACKOFF = { initialMs: 100, maxMs: 5000 };

export interface ListenOptions {
  /** How long to wait for the acknowledgement (default: the connection's request timeout). */
  ackTimeoutMs?: number | undefined;
  /** Re-listen attempts in a row after drops before giving up (default 5). */
  maxRelistens?: number | undefined;
  /** Backoff between re-listens, ms (default 100 doubling to 5000, no jitter). */
  backoff?: { initialMs: number; maxMs: number } | undefined;
}

/** How a subscription ended: closed by us, ended by the server with a result, or lost. */
export type ListenEnd = "local" | "graceful" | "remote";

export interface SubscriptionEvents {
  /** A notification of this subscription (routed by subscription id). */
  notification: [method: string, params: Params | undefined];
  /** A stream dropped or the server cancelled it; a re-listen follows. */
  drop: [error: Error];
  /** A new stream is acknowledged after a drop. */
  relisten: [id: JsonRpcId];
}

/** What a subscription needs from the dialect that opens its streams. */
export interface ListenHost {
  /** Builds the request (envelope, headers) for a listen with this filter. */
  prepare(filter: ListenFilter): { params: Params; send: SendOptions | undefined };
  /** Routes notifications tagged with `id` to `stream` (or stops, with `undefined`). */
  route(id: JsonRpcId, stream: ListenStream | undefined): void;
  readonly requestTimeoutMs: number;
}

/** One `subscriptions/listen` request and its stream. */
export interface ListenStream {
  acknowledged(honoured: ListenFilter): void;
  deliver(method: string, params: Params | undefined): void;
  /** stdio: the server sent notifications/cancelled for this listen. */
  cancelledByServer(): void;
}

export class Subscription extends EventEmitter<SubscriptionEvents> {
  /** The request id of the current stream (the subscription id on its notifications). */
  id: JsonRpcId | undefined;
  /** What the server said it will honour (may be less than asked). */
  honoured: ListenFilter = {};
  /** Settles once, when the subscription ends for good. */
  readonly closed: Promise<ListenEnd>;
  private end!: (how: ListenEnd) => void;
  private ended = false;
  private current: AbortController | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;

  /** @internal `client.listen()` makes subscriptions; the wire and host are the connection's. */
  constructor(
    private readonly wire: Wire,
    private readonly host: ListenHost,
    readonly requested: ListenFilter,
    private readonly options: ListenOptions = {},
  ) {
    super();
    this.closed = new Promise<ListenEnd>((resolve) => {
      this.end = resolve;
    });
  }

  /** Opens the first stream; resolves after the acknowledgement, rejects if the server refuses. */
  open(): Promise<void> {
    return this.openStream();
  }

  /** Ends the subscription: HTTP aborts the stream, stdio sends notifications/cancelled. */
  async close(): Promise<void> {
    this.finish("local");
  }

  private openStream(): Promise<void> {
    const { params, send } = this.host.prepare(this.requested);
    const controller = new AbortController();
    this.current = controller;
    // No deadline: the stream is meant to stay open. The acknowledgement has one (below).
    const { id, result } = this.wire.roundTripWithId("subscriptions/listen", params, { timeoutMs: Infinity, signal: controller.signal }, send);
    this.id = id;
    return new Promise<void>((resolve, reject) => {
      let acked = false;
      // No timer for an infinite (or setTimeout-unsafe) ack timeout: it would fire after 1 ms.
      const ackTimer = timerFor(() => {
        if (acked) return;
        const error = new McpError(`subscriptions/listen: no acknowledgement within ${this.ackTimeoutMs} ms; closing the stream`);
        controller.abort(error);
        reject(error);
      }, this.ackTimeoutMs);
      this.host.route(id, {
        acknowledged: (honoured) => {
          if (acked) return;
          acked = true;
          clearTimeout(ackTimer);
          this.honoured = honoured ?? {};
          this.failures = 0;
          resolve();
        },
        deliver: (method, notificationParams) => this.emit("notification", method, notificationParams),
        cancelledByServer: () => this.wire.forget(id, new McpError(`The server cancelled listen ${String(id)}`)),
      });
      result.then(
        (answer: Result) => {
          clearTimeout(ackTimer);
          this.host.route(id, undefined);
          if (!acked)
            reject(new ProtocolError("subscriptions/listen: the server ended the subscription before acknowledging it", ErrorCode.InternalError, answer));
          if (this.current === controller) this.finish("graceful");
        },
        (error: unknown) => {
          clearTimeout(ackTimer);
          this.host.route(id, undefined);
          if (!acked) {
            // Refused (an error before the ack) or never opened: the caller hears it.
            reject(error);
            if (this.current === controller && this.id !== undefined && this.failures > 0) this.dropped(error);
            return;
          }
          if (this.ended || error instanceof RequestCancelledError || this.current !== controller) return;
          this.dropped(error);
        },
      );
    });
  }

  private get ackTimeoutMs(): number {
    return this.options.ackTimeoutMs ?? this.host.requestTimeoutMs;
  }

  /** The stream was lost or cancelled by the server: listen again, with backoff. */
  private dropped(error: unknown): void {
    if (this.ended) return;
    this.emit("drop", asError(error));
    this.failures++;
    if (this.failures > (this.options.maxRelistens ?? 5)) {
      this.finish("remote");
      return;
    }
    const { initialMs, maxMs } = this.options.backoff ?? DEFAULT_RELISTEN_BACKOFF;
    // Clamped, not skipped: a re-listen must come, and setTimeout fires at once above 2^31-1 ms.
    const delay = clamp(backoffBase(this.failures - 1, { initialMs, maxMs, factor: 2, jitter: 0 }), 0, MAX_TIMER_MS, MAX_TIMER_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.ended) return;
      this.openStream().then(
        () => this.emit("relisten", this.id!),
        () => {
          // openStream's rejection path already counted this failure and scheduled the next try.
        },
      );
    }, delay);
  }

  /** Ends for good: stops retrying and closes the open stream, if any. */
  finish(how: ListenEnd): void {
    if (this.ended) return;
    this.ended = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    const current = this.current;
    this.current = undefined;
    if (how === "local") current?.abort("The subscription was closed");
    if (this.id !== undefined) this.host.route(this.id, undefined);
    this.end(how);
    this.removeAllListeners();
  }
}
