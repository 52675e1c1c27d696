/**
 * The async context a request was sent in, carried to where its answer is read. Node carries an
 * AsyncLocalStorage store through promises and awaits, but not into a socket's callbacks: undici
 * calls a response's handlers in the context of the socket, so a message read from a request's own
 * event stream would lose the context of the call that sent the request. A transport takes a binder
 * (`requestContextBinder()`) when it sends, binds what it delivers from that stream with it, and the
 * store comes back.
 *
 * The one store today is a call's own handlers for the server requests it causes
 * (src/client/call-handlers.ts). Without a store, nothing is bound: the hot path pays one lookup.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export const requestContext = new AsyncLocalStorage<object>();

export type ContextBinder = <A extends unknown[], R>(fn: (...args: A) => R) => (...args: A) => R;

const unbound: ContextBinder = (fn) => fn;

/** Binds functions to the request context current now (none: returns them as they are). */
export function requestContextBinder(): ContextBinder {
  const store = requestContext.getStore();
  return store === undefined
    ? unbound
    : (fn) =>
        (...args) =>
          requestContext.run(store, fn, ...args);
}
