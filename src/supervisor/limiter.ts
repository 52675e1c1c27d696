/**
 * Per-server concurrency limit with a bounded wait queue. At most `maxConcurrency` calls run at once;
 * up to `maxQueue` more wait (FIFO, scheduled by p-queue); past that a call fails at once with an
 * `OverloadError` (retryable, never delivered, so the router may send it to a fallback) instead of
 * piling up memory behind a slow server.
 *
 * The caller's `signal` only affects the waiting phase: an aborted waiting call leaves the queue and
 * rejects with `RequestCancelledError`. Once a call runs, cancelling it is `fn`'s business (the client
 * sends `notifications/cancelled`), so the limiter never abandons a running call it still counts.
 */
import PQueue from "p-queue";
import { OverloadError, RequestCancelledError } from "../jsonrpc/errors.js";

export interface ConcurrencyLimits {
  /** Calls running at once (>= 1, Infinity for no limit). */
  maxConcurrency: number;
  /** Calls waiting for a slot (>= 0, Infinity for no limit). */
  maxQueue: number;
}

export interface ConcurrencyLimiterOptions extends ConcurrencyLimits {
  /** The server's name, for error messages. */
  server: string;
}

export interface RunOptions {
  /** Aborting it while the call waits removes it from the queue. */
  signal?: AbortSignal | undefined;
}

function calls(n: number): string {
  return `${n} call${n === 1 ? "" : "s"}`;
}

export class ConcurrencyLimiter {
  readonly server: string;
  readonly limits: ConcurrencyLimits;
  /** Made on the first call that may wait: an unlimited limiter (the default) never needs one. */
  #queue: PQueue | undefined;
  /** One controller per waiting call: aborting it makes p-queue drop the call and reject with the reason. */
  #waiting: Set<AbortController> | undefined;
  #running = 0;
  /** Calls admitted so far: an idle check compares it across a period instead of timing each call. */
  #admitted = 0;

  constructor(options: ConcurrencyLimiterOptions) {
    const { maxConcurrency, maxQueue } = options;
    if (!(maxConcurrency === Infinity || (Number.isInteger(maxConcurrency) && maxConcurrency >= 1))) {
      throw new RangeError(`maxConcurrency must be an integer >= 1 or Infinity, got ${maxConcurrency}`);
    }
    if (!(maxQueue === Infinity || (Number.isInteger(maxQueue) && maxQueue >= 0))) {
      throw new RangeError(`maxQueue must be an integer >= 0 or Infinity, got ${maxQueue}`);
    }
    this.server = options.server;
    this.limits = { maxConcurrency, maxQueue };
  }

  /** No concurrency limit: nothing ever waits, so a caller may count its call with `enter`/`leave` instead of `run`. */
  get unlimited(): boolean {
    return this.limits.maxConcurrency === Infinity;
  }

  /** Calls waiting for a slot. */
  get size(): number {
    return this.#waiting?.size ?? 0;
  }

  /**
   * Counts a call that runs now without `run`, on an unlimited limiter: `leave()` once it settled. The
   * Switchboard's fast path uses these so that a call pays for no promise of the limiter's own.
   */
  enter(): void {
    this.#running++;
    this.#admitted++;
  }

  leave(): void {
    this.#running--;
  }

  /** Calls running. */
  get pending(): number {
    return this.#running;
  }

  /** Calls admitted since the limiter was made (running, done or waiting). */
  get admitted(): number {
    return this.#admitted;
  }

  run<T>(fn: () => Promise<T> | T, options: RunOptions = {}): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(this.#cancelled(signal));
    this.#admitted++;
    // Admission counts everything in the system, not "all slots busy and queue full": between a call
    // finishing and p-queue starting the next one (a microtask later) a slot looks free while the
    // queue is not yet drained, and the total is what bounds memory.
    const { maxConcurrency, maxQueue } = this.limits;
    if (this.#running + this.size >= maxConcurrency + maxQueue) {
      return Promise.reject(
        new OverloadError(`server "${this.server}": ${calls(this.#running)} running and ${this.size} waiting; limit reached`, { server: this.server }),
      );
    }

    // No limit (the default): nothing ever waits, and p-queue's bookkeeping (a task, an AbortSignal, a
    // listener per call) was two thirds of a routed call's cost.
    if (maxConcurrency === Infinity) return this.#runNow(fn);

    const ticket = new AbortController();
    const waiting = (this.#waiting ??= new Set());
    waiting.add(ticket);
    const leaveQueue = () => {
      waiting.delete(ticket);
      signal?.removeEventListener("abort", onCallerAbort);
    };
    const onCallerAbort = () => {
      leaveQueue();
      ticket.abort(this.#cancelled(signal!));
    };
    signal?.addEventListener("abort", onCallerAbort, { once: true });

    const task = (): Promise<T> => {
      leaveQueue(); // from here on the caller's signal is fn's business
      return this.#runNow(fn);
    };
    // Aborting the ticket while the call waits makes p-queue drop it and reject with the reason.
    this.#queue ??= new PQueue({ concurrency: maxConcurrency });
    return this.#queue.add(task, { signal: ticket.signal });
  }

  async #runNow<T>(fn: () => Promise<T> | T): Promise<T> {
    this.#running++;
    try {
      return await fn();
    } finally {
      this.#running--;
    }
  }

  /** Rejects every waiting call with `error` (running calls are left to finish). */
  clear(error: Error): void {
    const waiting = this.#waiting;
    if (waiting === undefined || waiting.size === 0) return;
    const tickets = [...waiting];
    waiting.clear();
    for (const ticket of tickets) ticket.abort(error);
  }

  #cancelled(signal: AbortSignal): RequestCancelledError {
    return new RequestCancelledError(`server "${this.server}": call cancelled while waiting for a free slot`, {
      delivered: false,
      server: this.server,
      cause: signal.reason,
    });
  }
}
