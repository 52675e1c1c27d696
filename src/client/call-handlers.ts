/**
 * One call's own handlers for the server's sampling, elicitation and roots requests, in place of the
 * connection's (`CallToolOptions.handlers`). A gateway needs them: the request a server sends while it
 * runs a tool must reach the downstream client whose call it is, not whoever made the connection.
 *
 * They ride on the call's request as its `origin` (RequestOptions.origin, src/util/request-context.ts).
 * A request that arrives on the call's own response stream (Streamable HTTP, the spec's related
 * request: the transport delivers that stream for the origin) or inside its results (2026 era, MRTR)
 * comes with it, so it finds them. A request that arrives elsewhere (a stdio server's stdout, the HTTP
 * GET stream: a server that did not relate it to the call) has no origin: `onlyCall` then names the
 * call when it is the one request the connection has in flight, the only case where the call that
 * caused it is certain; otherwise the connection's own handlers answer.
 */
import type { LogParams } from "../connection/events.js";
import type { ClientOptions } from "./options.js";

/**
 * A call's handlers: any of `connect()`'s onSampling, onElicitation and onRoots, and `onLog` for the
 * log messages the server sends on the call's own stream (a Streamable HTTP server's related logs, the
 * 2026 era's per-request ones). Those logs also reach the connection's `log` event as before.
 */
export type CallHandlers = Pick<ClientOptions, "onSampling" | "onElicitation" | "onRoots"> & {
  onLog?: ((params: LogParams) => void) | undefined;
};

/** The calls with handlers running, by the client that sends them (for `onlyCall`). */
const running = new WeakMap<object, Set<{ handlers: CallHandlers }>>();

/**
 * Runs `call` for `client` with `handlers` (if any) as the handlers of the server requests it causes:
 * `call` sends its request with them as its origin, and they answer for it out of band (`onlyCall`).
 */
export function withCallHandlers<T>(client: object, handlers: CallHandlers | undefined, call: () => Promise<T>): Promise<T> {
  if (handlers === undefined) return call();
  let calls = running.get(client);
  if (calls === undefined) running.set(client, (calls = new Set()));
  const entry = { handlers }; // one per call, even when calls share a handlers object
  calls.add(entry);
  const done = () => void calls.delete(entry);
  const pending = call();
  pending.then(done, done);
  return pending;
}

/**
 * The handlers for a server request: those of the call it came from (`origin`, the handlers that call
 * sent), or, with no origin, those of `client`'s one call with handlers when it is its only request in flight.
 */
export function callHandlersFor(origin: object | undefined, client: object | undefined, inFlight: () => number): CallHandlers | undefined {
  if (origin !== undefined || client === undefined) return origin;
  const calls = running.get(client);
  if (calls?.size !== 1 || inFlight() !== 1) return undefined;
  return calls.values().next().value?.handlers;
}
