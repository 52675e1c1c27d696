/**
 * The 2026-07-28 stateless era as the gateway serves it, whatever carries it: each request brings its
 * own envelope (`params._meta`: protocol version, client capabilities, client info, log level), so each
 * becomes a Downstream of its own that lives as long as the request; `server/discover` says what the
 * gateway is; every result says `resultType`, and the cacheable ones `ttlMs` and `cacheScope`. The
 * methods this era removed are unknown methods here. The envelope keys and versions are the client's
 * own (src/connection/eras/), so both sides of the gateway speak the one vocabulary.
 */
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION, META_SERVER_INFO } from "../connection/eras/modern-wire.js";
import { MODERN_PROTOCOL_VERSIONS, speaks } from "../connection/eras/versions.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/messages.js";
import { isObject } from "../util/guards.js";
import { LOG_LEVELS, type Downstream, type LogLevel } from "./downstream.js";
import { GATEWAY_CAPABILITIES, type GatewayHandler, type RequestStream } from "./handler.js";
import type { GatewaySettings } from "./options.js";

type Params = Record<string, unknown>;

/** Methods of the 2025 era that the 2026 era removed: a 2026 client that sends one gets -32601. */
const REMOVED = new Set(["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]);

/** Results that must say how long they may be cached (SEP-2549). */
const CACHEABLE = new Set(["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"]);

function isRemovedMethod(method: string): boolean {
  return REMOVED.has(method);
}

/** The envelope of a request's params, or undefined when it has none. */
export function envelopeOf(params: unknown): Params | undefined {
  return isObject(params) && isObject(params._meta) ? params._meta : undefined;
}

/** A 2026 request's envelope without its version or capabilities, or with a log level that is none: -32602. */
export function envelopeProblem(envelope: Params | undefined): JsonRpcErrorObject | undefined {
  if (typeof envelope?.[META_PROTOCOL_VERSION] !== "string" || !isObject(envelope[META_CLIENT_CAPABILITIES]))
    return {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: every 2026-07-28 request carries params._meta["${META_PROTOCOL_VERSION}"] and ["${META_CLIENT_CAPABILITIES}"]`,
    };
  const level = envelope[META_LOG_LEVEL];
  if (level === undefined || LOG_LEVELS.includes(level as LogLevel)) return undefined;
  return {
    code: ErrorCode.InvalidParams,
    message: `Invalid params: params._meta["${META_LOG_LEVEL}"] is ${JSON.stringify(level)}, not a log level (one of ${LOG_LEVELS.join(", ")})`,
  };
}

/** A version the gateway does not speak in the 2026 era: -32022, naming those it does. */
export function versionProblem(envelope: Params): JsonRpcErrorObject | undefined {
  const version: unknown = envelope[META_PROTOCOL_VERSION];
  if (speaks(version, "modern")) return undefined;
  return {
    code: ErrorCode.UnsupportedProtocolVersion,
    message: `Unsupported protocol version ${String(version)}`,
    data: { supported: [...MODERN_PROTOCOL_VERSIONS], requested: version },
  };
}

/** The client of one 2026 request, from its (checked) envelope: nothing outlives the request. */
export function requestDownstream(envelope: Params, principal: string | undefined): Downstream {
  const info = envelope[META_CLIENT_INFO];
  const level = envelope[META_LOG_LEVEL];
  return {
    principal,
    protocolVersion: envelope[META_PROTOCOL_VERSION] as string,
    clientInfo: isObject(info) ? info : undefined,
    capabilities: isObject(envelope[META_CLIENT_CAPABILITIES]) ? envelope[META_CLIENT_CAPABILITIES] : undefined,
    logLevel: level as LogLevel | undefined, // checked by envelopeProblem
    inFlight: new Map<JsonRpcId, AbortController>(),
    // Nothing reaches a stateless client outside its own response (listens have their own streams).
    push: () => undefined,
  };
}

export function discoverResult(settings: GatewaySettings): Params {
  const { serverInfo, instructions } = settings;
  return {
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    // Resource updates would come on a listen's resourceSubscriptions, which the gateway does not honour yet.
    capabilities: { ...GATEWAY_CAPABILITIES, resources: { listChanged: true } },
    ...(instructions === undefined ? {} : { instructions }),
    _meta: { [META_SERVER_INFO]: serverInfo },
  };
}

/**
 * A response as a 2026 client must get it: a result says `resultType` and, when cacheable, `ttlMs` 0
 * and `cacheScope` "private" (the board's lists change as its servers do, and differ by principal);
 * resource-not-found is -32602 in this era.
 */
export function modernResponse(method: string, response: JsonRpcResponse): JsonRpcResponse {
  if ("error" in response) {
    if (response.error.code !== ErrorCode.ResourceNotFound) return response;
    return { ...response, error: { ...response.error, code: ErrorCode.InvalidParams } };
  }
  const result: Params = { ...response.result, resultType: response.result.resultType ?? "complete" };
  if (CACHEABLE.has(method)) {
    result.ttlMs ??= 0;
    result.cacheScope ??= "private";
  }
  return { ...response, result };
}

/** The error response of a 2026 request that gets no answer from the board. */
function refused(id: JsonRpcId, error: JsonRpcErrorObject): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error };
}

/**
 * Answers one 2026 request whose envelope was checked (`envelopeProblem`), whatever carries it; the
 * transport keeps `downstream` to cancel it. `subscriptions/listen` is the transport's own.
 */
export async function answerModern(handler: GatewayHandler, request: JsonRpcRequest, downstream: Downstream, stream?: RequestStream): Promise<JsonRpcResponse> {
  const problem = versionProblem(envelopeOf(request.params)!);
  if (problem !== undefined) return refused(request.id, problem);
  if (isRemovedMethod(request.method))
    return refused(request.id, {
      code: ErrorCode.MethodNotFound,
      message: `Method not found: ${request.method} (not in protocol version ${downstream.protocolVersion})`,
    });
  if (request.method === "server/discover") return modernResponse(request.method, { jsonrpc: "2.0", id: request.id, result: discoverResult(handler.settings) });
  return modernResponse(request.method, await handler.handle(request, downstream, stream));
}
