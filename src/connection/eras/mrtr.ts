/**
 * Multi-round-trip requests (2026-07-28): instead of sending the client requests, a server answers
 * tools/call, prompts/get or resources/read with `resultType: "input_required"` and a set of embedded
 * requests. The client fulfils them with the same handlers that answer 2025-era server requests, then
 * sends the original request again (a new id) with `inputResponses` and the server's `requestState`.
 */
import { ErrorCode } from "../../jsonrpc/codes.js";
import { McpError, ProtocolError } from "../../jsonrpc/errors.js";
import { isObject } from "../../util/guards.js";
import { sleep } from "../../util/timers.js";
import type { Params, Result, Wire } from "./dialect.js";
import { InputRequiredRoundsError } from "./era-errors.js";

export const MRTR_METHODS = new Set(["tools/call", "prompts/get", "resources/read"]);
export const MAX_INPUT_ROUNDS = 10;
/** A round with only `requestState` is the server asking to come back shortly, not a prompt. */
export const STATE_ONLY_PAUSE_MS = 250;
/** More input requests than any prompt UI shows at once: a server asking for more is broken or hostile. */
export const MAX_INPUT_REQUESTS = 32;

interface InputRequest {
  method: string;
  params?: Params;
}

/** The params of the next round: the original ones, plus the answers and the state echoed verbatim. */
export async function nextRoundParams(
  wire: Wire,
  original: Params | undefined,
  result: Result,
  signal: AbortSignal | undefined,
  origin: object | undefined,
): Promise<Params> {
  const requests = result.inputRequests;
  const state = result.requestState;
  if (requests !== undefined && !isObject(requests)) {
    throw new McpError(`The server's input_required result has malformed inputRequests (${JSON.stringify(requests).slice(0, 100)})`);
  }
  if (state !== undefined && typeof state !== "string") throw new McpError("The server's input_required result has a requestState that is not a string");
  const entries = Object.entries((requests ?? {}) as Record<string, InputRequest>);
  if (entries.length > MAX_INPUT_REQUESTS) {
    // Refused before any handler starts: every key would run a handler (a prompt, a model call) at once.
    throw new ProtocolError(
      `The server's input_required result has ${entries.length} inputRequests; at most ${MAX_INPUT_REQUESTS} are answered`,
      ErrorCode.InternalError,
    );
  }
  if (entries.length === 0 && state === undefined) throw new McpError("The server answered input_required with neither inputRequests nor requestState");
  const next: Params = { ...original };
  delete next.inputResponses;
  delete next.requestState;
  if (entries.length === 0) {
    await sleep(STATE_ONLY_PAUSE_MS, signal);
    if (signal?.aborted) throw signal.reason;
  } else {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      // Every key is answered, all at once: a user may see several prompts side by side.
      // Raced with the signal: a handler that ignores its signal must not keep the call open.
      const answers = await untilAborted(Promise.all(entries.map(([key, request]) => fulfil(wire, key, request, controller.signal, origin))), signal);
      next.inputResponses = Object.fromEntries(entries.map(([key], index) => [key, answers[index]]));
    } catch (error) {
      controller.abort(error);
      throw error;
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }
  if (state !== undefined) next.requestState = state;
  return next;
}

export function roundsExceeded(method: string, rounds: number, last: Result): InputRequiredRoundsError {
  return new InputRequiredRoundsError(
    `${method}: the server still asked for input after ${rounds} rounds; giving up (the rounds limit is ${MAX_INPUT_ROUNDS})`,
    rounds,
    last,
  );
}

/** `origin`: the request's (RequestOptions.origin), whose own handlers answer when it brought any. */
async function fulfil(wire: Wire, key: string, request: InputRequest, signal: AbortSignal, origin: object | undefined): Promise<Result> {
  if (!isObject(request) || typeof request.method !== "string") {
    throw new McpError(`The server's input request "${key}" is not a {method, params} object`);
  }
  const params = request.params ?? {};
  const missing = undeclared(wire.clientCapabilities, request.method, params);
  if (missing !== undefined) {
    throw new McpError(
      `The server asked for ${request.method} (input "${key}"), but this client did not declare ${missing}; add the matching handler to connect() options to allow it`,
    );
  }
  const answer = await wire.handleServerRequest(request.method, params, signal, key, origin);
  if (request.method === "elicitation/create" && params.mode === "url" && answer.action === "accept") {
    // URL mode: consent was given and the page opened; the outcome is learned by retrying, so the
    // answer carries no content (and no elicitationId: the era has none).
    return { action: "accept" };
  }
  return answer;
}

/** The capability a kind of input request needs, when the client did not declare it. */
function undeclared(capabilities: Record<string, unknown>, method: string, params: Params): string | undefined {
  switch (method) {
    case "sampling/createMessage":
      return capabilities.sampling ? undefined : "the sampling capability";
    case "roots/list":
      return capabilities.roots ? undefined : "the roots capability";
    case "elicitation/create": {
      const elicitation = capabilities.elicitation as Record<string, unknown> | undefined;
      if (!elicitation) return "the elicitation capability";
      // An empty `elicitation: {}` means form mode only.
      if (params.mode === "url" && !elicitation.url) return "URL-mode elicitation (elicitation.url)";
      return undefined;
    }
    default:
      return `any handler for ${method} (not an input request kind of this protocol)`;
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const aborted = () => reject(signal.reason);
    signal.addEventListener("abort", aborted, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", aborted);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", aborted);
        reject(error);
      },
    );
  });
}
