/**
 * Which request a message read from a request's own response stream belongs to. A server's request or
 * log that arrives there (Streamable HTTP, the spec's related messages) was caused by that request, so
 * the handlers its caller gave (src/client/call-handlers.ts) should have it. The transport knows the
 * stream's request id and binds what it delivers from that stream with `deliveringFor(id)`; the
 * connection reads `deliveryRequest()` while it dispatches, and finds the caller's handlers (the
 * request's `origin`) in its request table.
 *
 * The id, not the handlers, rides down: a transport's per-request options stay empty for a call that
 * brings handlers, which kept the gateway's pass-through calls measurably cheaper (docs/guide/gateway.md).
 * Not an AsyncLocalStorage: entering one turns on Node's promise hooks for the whole process (on
 * Node 20), so every promise of the application paid for it. Nothing asynchronous has to carry the
 * id: delivery, the connection's routing and the handler's first step run in one synchronous stretch.
 */

/** A JSON-RPC request id (jsonrpc/messages.ts), spelled out: this module sits below the protocol layers. */
type RequestId = string | number;

export type DeliveryBinder = <A extends unknown[], R>(fn: (...args: A) => R) => (...args: A) => R;

let delivering: RequestId | undefined;

const unbound: DeliveryBinder = (fn) => fn;

/** Binds functions so that, while they run, `deliveryRequest()` is `id` (none: returns them as they are). */
export function deliveringFor(id: RequestId | undefined): DeliveryBinder {
  if (id === undefined) return unbound;
  return (fn) =>
    (...args) => {
      const outer = delivering;
      delivering = id;
      try {
        return fn(...args);
      } finally {
        delivering = outer;
      }
    };
}

/** The id of the request on whose own stream the message being delivered now came, if any. */
export function deliveryRequest(): RequestId | undefined {
  return delivering;
}
