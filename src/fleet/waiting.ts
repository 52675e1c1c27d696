/**
 * Calls waiting for a fleet permit, at the Redis gate (gate.ts) or on the local share while Redis is
 * away (local-share.ts): both queue them the same way, drop one whose signal aborts, and refuse those
 * whose deadline passed when they next look (no timer per call).
 */
import { RequestCancelledError, RequestTimeoutError } from "../jsonrpc/errors.js";

export interface Waiting<T> {
  resolve(value: T): void;
  reject(error: Error): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  /** When the call's time is up (ms since the epoch); Infinity: no deadline. */
  deadline: number;
  since: number;
}

/** Queues a waiting call on `queue`; an abort of its signal takes it off and refuses it. */
export function enqueue<T>(
  queue: Waiting<T>[],
  server: string,
  signal: AbortSignal | undefined,
  deadline: number,
  resolve: (value: T) => void,
  reject: (error: Error) => void,
): Waiting<T> {
  const entry: Waiting<T> = { resolve, reject, signal, onAbort: undefined, deadline, since: Date.now() };
  if (signal !== undefined) {
    entry.onAbort = () => {
      const at = queue.indexOf(entry);
      if (at >= 0) queue.splice(at, 1);
      settle(entry, undefined, cancelled(server, signal));
    };
    signal.addEventListener("abort", entry.onAbort, { once: true });
  }
  queue.push(entry);
  return entry;
}

/** Grants a waiting call `value`, or refuses it with `error`; its abort listener goes either way. */
export function settle<T>(entry: Waiting<T>, value: T | undefined, error?: Error): void {
  detach(entry);
  if (error === undefined) entry.resolve(value as T);
  else entry.reject(error);
}

/** Takes a waiting call's abort listener off (it is granted, refused or handed on). */
export function detach(entry: Waiting<unknown>): void {
  if (entry.onAbort !== undefined) entry.signal?.removeEventListener("abort", entry.onAbort);
}

/** Refuses the calls on `queue` whose deadline passed; returns the next deadline (Infinity: none). */
export function refuseDue<T>(queue: Waiting<T>[], server: string, now = Date.now()): number {
  let next = Infinity;
  for (const entry of [...queue]) {
    if (entry.deadline > now) next = Math.min(next, entry.deadline);
    else {
      queue.splice(queue.indexOf(entry), 1);
      settle(entry, undefined, timedOut(server, entry));
    }
  }
  return next;
}

export function cancelled(server: string, signal: AbortSignal): RequestCancelledError {
  return new RequestCancelledError(`server "${server}": call cancelled while waiting for a fleet permit`, { delivered: false, server, cause: signal.reason });
}

export function timedOut(server: string, entry: { deadline: number; since: number }): RequestTimeoutError {
  const waited = Math.max(0, entry.deadline - entry.since);
  return new RequestTimeoutError(`server "${server}": no fleet permit within the call's timeout (${waited} ms)`, waited, { delivered: false, server });
}
