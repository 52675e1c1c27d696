/**
 * One call's own handlers for the server's sampling, elicitation and roots requests, in place of the
 * connection's (`CallToolOptions.handlers`). A gateway needs them: the request a server sends while it
 * runs a tool must reach the downstream client whose call it is, not whoever made the connection.
 *
 * They ride on the request context opened around the call (src/util/request-context.ts). A request
 * that arrives on the call's own response stream (Streamable HTTP, the spec's related request: the
 * transport binds that stream to the context) or inside its results (2026 era, MRTR) is read in that
 * context, so it finds them. A request that arrives elsewhere (a stdio server's
 * stdout, the HTTP GET stream: a server that did not relate it to the call) is outside every scope:
 * `onlyCall` then names the call when it is the one request the connection has in flight, the only
 * case where the call that caused it is certain; otherwise the connection's own handlers answer.
 */
import { requestContext } from "../util/request-context.js";
import type { ClientOptions } from "./options.js";

/** A call's handlers: any of `connect()`'s onSampling, onElicitation and onRoots. */
export type CallHandlers = Pick<ClientOptions, "onSampling" | "onElicitation" | "onRoots">;

/** The calls with handlers running, by the client that sends them (for `onlyCall`). */
const running = new WeakMap<object, Set<{ handlers: CallHandlers }>>();

/** Runs `call` for `client` with `handlers` (if any) as the handlers of the server requests it causes. */
export function withCallHandlers<T>(client: object, handlers: CallHandlers | undefined, call: () => Promise<T>): Promise<T> {
  if (handlers === undefined) return call();
  let calls = running.get(client);
  if (calls === undefined) running.set(client, (calls = new Set()));
  const entry = { handlers }; // one per call, even when calls share a handlers object
  calls.add(entry);
  const done = () => void calls.delete(entry);
  const pending = requestContext.run(handlers, call);
  pending.then(done, done);
  return pending;
}

/**
 * The handlers for a server request arriving now: those of the call whose scope this runs in, or, out
 * of every scope, those of `client`'s one call with handlers when it is its only request in flight.
 */
export function callHandlersFor(client: object | undefined, inFlight: () => number): CallHandlers | undefined {
  const own = requestContext.getStore() as CallHandlers | undefined;
  if (own !== undefined || client === undefined) return own;
  const calls = running.get(client);
  if (calls?.size !== 1 || inFlight() !== 1) return undefined;
  return calls.values().next().value?.handlers;
}
