/**
 * Which request a message read from a request's own response stream belongs to. A server's request
 * that arrives there (Streamable HTTP, the spec's related request) was caused by that request, so the
 * handlers its caller gave (src/client/call-handlers.ts) should answer it. The request carries them as
 * its `origin` (RequestOptions → SendOptions); the transport binds what it delivers from that stream
 * with `deliveringFor(origin)`, and the connection reads `deliveryOrigin()` while it dispatches.
 *
 * Not an AsyncLocalStorage: entering one turns on Node's promise hooks for the whole process (on
 * Node 20), so every promise of the application paid for the calls that carried handlers; they were
 * 3-4% of a gateway's profile. Nothing asynchronous has to carry the origin: delivery, the
 * connection's routing and the handler's first step run in one synchronous stretch, and the origin
 * is read at its start.
 */

export type OriginBinder = <A extends unknown[], R>(fn: (...args: A) => R) => (...args: A) => R;

let delivering: object | undefined;

const unbound: OriginBinder = (fn) => fn;

/** Binds functions so that, while they run, `deliveryOrigin()` is `origin` (none: returns them as they are). */
export function deliveringFor(origin: object | undefined): OriginBinder {
  if (origin === undefined) return unbound;
  return (fn) =>
    (...args) => {
      const outer = delivering;
      delivering = origin;
      try {
        return fn(...args);
      } finally {
        delivering = outer;
      }
    };
}

/** The origin of the message being delivered now, if it came from a request's own stream. */
export function deliveryOrigin(): object | undefined {
  return delivering;
}
