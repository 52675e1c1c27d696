/**
 * Callers waiting for something to become ready: requests made before their connection negotiated,
 * Switchboard calls for a server that is (re)starting. A bounded queue: `open(value)` lets every
 * waiter through with the value, `rejectAll(error)` fails them all; a waiter leaves on its own when its
 * signal aborts or its time runs out. Callers check readiness themselves and wait only when they must,
 * so a ready thing pays nothing for its gate.
 */
import { OverloadError, RequestCancelledError } from "../jsonrpc/errors.js";
import { timerFor } from "../util/timers.js";

export interface ReadyGateOptions {
  /** What the callers wait for, for the error messages: "the connection to become ready". */
  waitingFor: string;
  /** At most this many callers wait; more fail at once with an `OverloadError` (default: no limit). */
  limit?: number;
  /** The Switchboard server the errors name, if any. */
  server?: string;
}

export interface ReadyWaitOptions {
  /** Aborting it ends the wait with a `RequestCancelledError` (`delivered: false`). */
  signal?: AbortSignal | undefined;
  /** Give up after `ms` with `error()`; no timer when `ms` is longer than a timer can hold. */
  timeout?: { ms: number; error: () => Error };
}

interface Waiter<T> {
  resolve(value: T): void;
  reject(error: Error): void;
}

export class ReadyGate<T = void> {
  /** Made for the first waiter: most gates (one per connection, one per supervised server) never have one. */
  private waiters: Set<Waiter<T>> | undefined;

  constructor(private readonly options: ReadyGateOptions) {}

  /** How many callers wait. */
  get size(): number {
    return this.waiters?.size ?? 0;
  }

  wait(options: ReadyWaitOptions = {}): Promise<T> {
    const { signal, timeout } = options;
    const limit = this.options.limit ?? Infinity;
    if (this.size >= limit) {
      return Promise.reject(new OverloadError(`${limit} requests are already waiting for ${this.options.waitingFor}`, { server: this.options.server }));
    }
    if (signal?.aborted) return Promise.reject(this.cancelled());
    const waiters = (this.waiters ??= new Set());
    return new Promise<T>((resolve, reject) => {
      const leave = () => {
        waiters.delete(waiter);
        if (waiters.size === 0 && this.waiters === waiters) this.waiters = undefined;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const waiter: Waiter<T> = {
        resolve: (value) => {
          leave();
          resolve(value);
        },
        reject: (error) => {
          leave();
          reject(error);
        },
      };
      const onAbort = () => waiter.reject(this.cancelled());
      const timer = timeout === undefined ? undefined : timerFor(() => waiter.reject(timeout.error()), timeout.ms);
      signal?.addEventListener("abort", onAbort, { once: true });
      waiters.add(waiter);
    });
  }

  /** Lets every waiter through with `value`, in the order they came. */
  open(value: T): void {
    if (this.size === 0) return;
    for (const waiter of [...this.waiters!]) waiter.resolve(value);
  }

  /** Fails every waiter with `error`. */
  rejectAll(error: Error): void {
    if (this.size === 0) return;
    for (const waiter of [...this.waiters!]) waiter.reject(error);
  }

  private cancelled(): RequestCancelledError {
    return new RequestCancelledError(`Cancelled while waiting for ${this.options.waitingFor}`, { delivered: false, server: this.options.server });
  }
}
