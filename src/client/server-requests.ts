/**
 * Turns the handlers given to `connect()` into the one function the connection calls for every
 * server-to-client request, and derives the capabilities the client declares: exactly those it has a
 * handler for. The same function serves the 2026 era, where these requests arrive inside results.
 */
import type { Params, Result, ServerRequestHandler } from "../connection/eras/dialect.js";
import { methodNotFound } from "../connection/inbound.js";
import type { CallHandlers } from "./call-handlers.js";
import { withElicitationDefaults } from "./elicitation-defaults.js";
import type { ClientOptions } from "./options.js";
import type { Root } from "./types.js";
import { definedMembers } from "../util/guards.js";

/** What the handler reads of its client when a request comes: its roots. */
export interface ClientFacts {
  current(): Root[] | undefined;
}

export function buildServerRequestHandler(connectOptions: ClientOptions, roots: ClientFacts): ServerRequestHandler {
  return async (method: string, params: Params, signal: AbortSignal, inputKey?: string, origin?: object): Promise<Result> => {
    const context = inputKey === undefined ? { signal, method } : { signal, method, inputKey };
    // The call that caused the request may bring its own handlers (call-handlers.ts); they win.
    const own = origin as CallHandlers | undefined;
    const options = own === undefined ? connectOptions : { ...connectOptions, ...definedMembers(own) };
    switch (method) {
      case "sampling/createMessage":
        if (options.onSampling) return await options.onSampling(params as never, context);
        break;
      case "elicitation/create":
        if (options.onElicitation) {
          const answer = (await options.onElicitation(params as never, context)) as unknown as Result;
          return withElicitationDefaults(params, answer);
        }
        break;
      case "roots/list": {
        if (options.onRoots) {
          const answer = await options.onRoots(context);
          return Array.isArray(answer) ? { roots: answer } : answer;
        }
        const list = roots.current();
        if (list) return { roots: list };
        break;
      }
    }
    return methodNotFound(method, params, signal);
  };
}

export function declaredCapabilities(options: ClientOptions): Record<string, unknown> {
  const capabilities: Record<string, unknown> = { ...(options.capabilities ?? {}) };
  if (options.onSampling) capabilities.sampling ??= {};
  if (options.onElicitation) capabilities.elicitation ??= { form: {}, url: {} };
  if (options.onRoots || options.roots) capabilities.roots ??= { listChanged: true };
  return capabilities;
}
