/**
 * The gateway's requests to a downstream client: an upstream server's sampling, elicitation and roots
 * requests, sent to the client whose call caused them, and its answers matched back by id.
 *
 * A board call from the gateway carries `handlersFor(...)` as its own handlers (`CallToolOptions.handlers`,
 * src/client/call-handlers.ts), so a server request it causes lands here and not in the board's
 * connection-wide handlers. It goes to the client on the call's own stream when there is one (the POST's
 * event stream, as the 2025-11-25 spec relates a request to the call it belongs to; stdout on stdio), and
 * on the session's GET stream otherwise. A client that did not declare the capability is never asked:
 * the server gets -32601, the code a client without a handler answers. When the server cancels its
 * request (its timeout, or the call was cancelled), the client is told with `notifications/cancelled`.
 */
import { randomBytes } from "node:crypto";
import { META_CLIENT_CAPABILITIES, META_LOG_LEVEL } from "../connection/eras/modern-wire.js";
import { isModern } from "../connection/eras/versions.js";
import type { CallHandlers } from "../client/call-handlers.js";
import type { LogParams } from "../connection/events.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ProtocolError, RequestCancelledError } from "../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/messages.js";
import { isObject } from "../util/guards.js";
import { wantsLog, type Downstream } from "./downstream.js";
import { pendingAnswer, type Settle } from "./pending-answer.js";

type Params = Record<string, unknown>;
/** Sends a message on the stream of the call a request belongs to. */
export type CallStream = (message: JsonRpcNotification | JsonRpcRequest) => void;

/** The requests sent to one downstream client and not answered yet, by id. */
export class ClientRequests {
  private readonly waiting = new Map<JsonRpcId, Settle<Params>>();
  private next = 0;
  /**
   * Replicas that run calls of one session each ask its client, and its answers may land on any of them
   * (replicas.ts passes an answer on to the others): ids unique to this process keep them apart.
   */
  private readonly tag = randomBytes(4).toString("hex");

  /** Sends `method` to the client (on `stream`, else its session stream); settles with its answer. */
  ask(downstream: Downstream, method: string, params: Params, signal: AbortSignal, stream: CallStream | undefined): Promise<Params> {
    if (signal.aborted) return Promise.reject(new RequestCancelledError(`${method} was cancelled before it reached the client`));
    const id = `gateway-${this.tag}-${++this.next}`;
    const send = stream ?? ((message: JsonRpcNotification | JsonRpcRequest) => downstream.push(message));
    const answer = pendingAnswer<Params>(
      signal,
      (settle) => this.waiting.set(id, settle),
      () => {
        this.waiting.delete(id);
        send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id, reason: "The server cancelled its request" } });
        return new RequestCancelledError(`${method} was cancelled by the server`);
      },
    );
    send({ jsonrpc: "2.0", id, method, params });
    return answer;
  }

  /** The client's answer to one of our requests; false when none waits for it (late, or never ours). */
  answered(response: JsonRpcResponse): boolean {
    const waiting = this.waiting.get(response.id as JsonRpcId);
    if (waiting === undefined) return false;
    this.waiting.delete(response.id as JsonRpcId);
    if ("error" in response) waiting.reject(ProtocolError.fromWire(response.error));
    else waiting.resolve(isObject(response.result) ? response.result : {});
    return true;
  }

  /** The client is gone: every request waiting on it fails (the server gets an error, not silence). */
  close(): void {
    for (const waiting of this.waiting.values())
      waiting.reject(new ProtocolError("The downstream client went away before it answered", ErrorCode.InternalError));
    this.waiting.clear();
  }
}

/**
 * What a board's clients declare so their servers may send requests on to a gateway's downstream
 * clients: `new Switchboard(init, { client: { capabilities: PASS_THROUGH_CAPABILITIES } })`.
 * `mcp-switchboard serve` declares them; without them a server never asks (the SDK's refuse locally).
 */
export const PASS_THROUGH_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };

const CAPABILITY: Record<string, string> = { "sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots" };

/**
 * The handlers a 2025 client's board call carries: each asks the client, if it declared the capability.
 * (A 2026 client's are input-required.ts's.)
 */
export function handlersFor(downstream: Downstream, stream: CallStream | undefined): CallHandlers {
  const ask = (method: string, params: Params, signal: AbortSignal): Promise<never> => {
    const capability = CAPABILITY[method]!;
    if (!isObject(downstream.capabilities?.[capability])) {
      const who = typeof downstream.clientInfo?.name === "string" ? `The client "${downstream.clientInfo.name}"` : "The client";
      const error = new ProtocolError(
        `${who} did not declare the ${capability} capability, so the gateway cannot pass ${method} to it`,
        ErrorCode.MethodNotFound,
      );
      return Promise.reject(error);
    }
    downstream.requests ??= new ClientRequests();
    return downstream.requests.ask(downstream, method, params, signal, stream) as Promise<never>;
  };
  return {
    onSampling: (params, { signal }) => ask("sampling/createMessage", params as unknown as Params, signal),
    onElicitation: (params, { signal }) => ask("elicitation/create", params as unknown as Params, signal),
    onRoots: ({ signal }) => ask("roots/list", {}, signal),
  };
}

/**
 * A 2026 request's client declares its capabilities in each request: a call it makes goes upstream
 * declaring, of what a server may ask, only what it declared (a 2026 upstream reads them from the
 * request's `_meta`, and refuses with -32021 what it would need and was not offered), and asking for
 * log messages at the level it asked for, if any.
 */
export function modernEnvelope(downstream: Downstream): { meta?: Record<string, unknown> } {
  if (!isModern(downstream.protocolVersion)) return {};
  const declared: Record<string, unknown> = {};
  for (const capability of Object.values(CAPABILITY)) {
    const value = downstream.capabilities?.[capability];
    if (isObject(value)) declared[capability] = value;
  }
  const meta: Record<string, unknown> = { [META_CLIENT_CAPABILITIES]: declared };
  if (downstream.logLevel !== undefined) meta[META_LOG_LEVEL] = downstream.logLevel;
  return { meta };
}

/**
 * Where a 2026 request's call sends its log messages (those the server sent on the call's own stream):
 * to the request's response stream, at its level or above; undefined when the request named no level.
 * The era has no session to broadcast them to, and a log from the call's own stream can only be this
 * client's.
 */
export function requestLogger(downstream: Downstream, stream: CallStream | undefined): ((params: LogParams) => void) | undefined {
  if (stream === undefined || downstream.logLevel === undefined) return undefined;
  return (params) => {
    if (wantsLog(downstream, params.level)) stream({ jsonrpc: "2.0", method: "notifications/message", params });
  };
}
