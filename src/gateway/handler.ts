/**
 * The gateway's MCP server side, whatever carries it: a request from a downstream client becomes a
 * call on the board (tools/call through `board.callTool`, so hooks, approval, limits, breakers,
 * fallbacks, pins and the observer all apply), and its answer a JSON-RPC response. Progress goes back
 * on the request's own stream, a `notifications/cancelled` aborts the board call, and a call that
 * failed over says so in its result's `_meta`.
 */
import { getEventListeners } from "node:events";
import type { CallToolResult } from "../client/types.js";
import { isModern, LEGACY_PROTOCOL_VERSIONS } from "../connection/eras/versions.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ProtocolError } from "../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/messages.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { isObject } from "../util/guards.js";
import { GatewayCatalog } from "./catalog.js";
import type { CallHandlers } from "../client/call-handlers.js";
import { handlersFor, modernEnvelope, requestLogger, type CallStream } from "./client-requests.js";
import { InputRounds } from "./input-required.js";
import { LOG_LEVELS, type Downstream, type LogLevel } from "./downstream.js";
import { gatewayNames, type GatewayNames } from "./names.js";
import { ResourceSubscriptions } from "./resource-subscriptions.js";
import type { GatewaySettings } from "./options.js";
import { wireError } from "./wire-error.js";
import { inGatewaySession } from "../telemetry/gateway-session.js";

type Params = Record<string, unknown>;
/** Sends a message about this request (progress, a server's request it caused) where its response will go. */
export type RequestStream = CallStream;

/** How many AbortControllers of ended calls the gateway keeps for the next calls. */
const SPARE_CONTROLLERS = 256;

/** Where a fallback is noted in a tool result's `_meta`. */
export const FALLBACK_META_KEY = "io.mcp-switchboard/fallback";

export const GATEWAY_CAPABILITIES = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
} as const;

export class GatewayHandler {
  readonly catalog: GatewayCatalog;
  readonly names: GatewayNames;
  /** 2026 clients' calls waiting on their input (MRTR). */
  readonly inputRounds = new InputRounds();
  /** Resource subscriptions of every client, 2025 sessions and 2026 listens alike. */
  readonly subscriptions: ResourceSubscriptions;
  /**
   * The controllers of calls that ended unaborted with no listener left on their signal, for the next
   * calls: on Node 20 a new AbortSignal costs ~15 µs, a tenth of all the gateway spends on a call.
   */
  private readonly spare: AbortController[] = [];

  constructor(
    readonly board: Switchboard,
    readonly settings: GatewaySettings,
  ) {
    this.names = gatewayNames(board, settings.qualifyNames);
    this.catalog = new GatewayCatalog(board, this.names);
    this.subscriptions = new ResourceSubscriptions(board, this.catalog);
  }

  /** Answers one request; never rejects (a failure is an error response). */
  async handle(request: JsonRpcRequest, downstream: Downstream, stream?: RequestStream): Promise<JsonRpcResponse> {
    const controller = this.spare.pop() ?? new AbortController();
    downstream.inFlight.set(request.id, controller);
    try {
      const result = await this.answer(request.method, request.params ?? {}, downstream, controller.signal, request.id, stream);
      return { jsonrpc: "2.0", id: request.id, result };
    } catch (error) {
      return { jsonrpc: "2.0", id: request.id, error: wireError(error) };
    } finally {
      downstream.inFlight.delete(request.id);
      this.release(controller);
    }
  }

  /** Keeps an ended call's controller for another call, unless its signal fired or something still listens to it. */
  private release(controller: AbortController): void {
    if (controller.signal.aborted || this.spare.length >= SPARE_CONTROLLERS || getEventListeners(controller.signal, "abort").length !== 0) return;
    this.spare.push(controller);
  }

  /** The client's answer to a server request the gateway passed it (client-requests.ts). */
  /** False when no request of this process waits for it (another replica's, late, or never ours). */
  answered(response: JsonRpcResponse, downstream: Downstream): boolean {
    return downstream.requests?.answered(response) ?? false;
  }

  /** A notification from the client: cancellation aborts its request; the rest need no answer. */
  notify(message: JsonRpcNotification, downstream: Downstream): void {
    if (message.method === "notifications/cancelled") {
      const id = message.params?.requestId as JsonRpcId | undefined;
      if (id !== undefined) downstream.inFlight.get(id)?.abort();
    }
  }

  /** The `initialize` result for a client that asked for `requested`; sets the version agreed. */
  initialize(params: Params, downstream: Downstream): Params {
    const requested = params.protocolVersion;
    downstream.protocolVersion = LEGACY_PROTOCOL_VERSIONS.find((v) => v === requested) ?? LEGACY_PROTOCOL_VERSIONS[0];
    downstream.clientInfo = isObject(params.clientInfo) ? params.clientInfo : undefined;
    downstream.capabilities = isObject(params.capabilities) ? params.capabilities : undefined;
    const { serverInfo, instructions } = this.settings;
    return {
      protocolVersion: downstream.protocolVersion,
      capabilities: GATEWAY_CAPABILITIES,
      serverInfo,
      ...(instructions === undefined ? {} : { instructions }),
    };
  }

  private answer(
    method: string,
    params: Params,
    downstream: Downstream,
    signal: AbortSignal,
    id: JsonRpcId,
    stream: RequestStream | undefined,
  ): Promise<Params> | Params {
    switch (method) {
      case "tools/call":
        return this.callTool(params, downstream, signal, stream);
      case "tools/list":
        return this.catalog.tools(downstream.principal);
      case "resources/list":
        return this.catalog.resources();
      case "resources/templates/list":
        return this.catalog.templates();
      case "resources/read":
        return this.asking(`resources/read ${String(params.uri)}`, params, downstream, signal, stream, (handlers, s) => this.catalog.read(params, s, handlers));
      case "resources/subscribe":
        return this.subscriptions.subscribe(params, downstream, signal);
      case "resources/unsubscribe":
        return this.subscriptions.unsubscribe(params, downstream, signal);
      case "prompts/list":
        return this.catalog.prompts();
      case "prompts/get":
        return this.asking(`prompts/get ${String(params.name)}`, params, downstream, signal, stream, (handlers, s) => this.catalog.prompt(params, s, handlers));
      case "completion/complete":
        // A 2026 result cannot ask the client (only calls, reads and gets may answer input_required),
        // so there what a completion's server asks goes to the board's own handlers.
        return this.catalog.complete(params, signal, isModern(downstream.protocolVersion) ? undefined : handlersFor(downstream, stream));
      case "ping":
        return {};
      case "initialize":
        return this.initialize(params, downstream);
      case "logging/setLevel":
        if (!LOG_LEVELS.includes(params.level as LogLevel))
          throw new ProtocolError(`Unknown log level ${JSON.stringify(params.level)}`, ErrorCode.InvalidParams);
        downstream.logLevel = params.level as LogLevel;
        return {};
      default:
        throw new ProtocolError(`Method not found: ${method} (request ${String(id)})`, ErrorCode.MethodNotFound);
    }
  }

  private callTool(params: Params, downstream: Downstream, signal: AbortSignal, stream: RequestStream | undefined): Promise<Params> {
    if (typeof params.name !== "string") throw new ProtocolError("tools/call needs params.name (a string)", ErrorCode.InvalidParams);
    return this.asking(`tools/call ${params.name}`, params, downstream, signal, stream, (handlers, s) => this.runTool(params, downstream, s, stream, handlers));
  }

  /**
   * Runs a board call that may cause server requests, with the handlers that reach its client: a 2026
   * client is asked inside input_required results (input-required.ts), a 2025 one on the call's stream.
   */
  private asking(
    what: string,
    params: Params,
    downstream: Downstream,
    signal: AbortSignal,
    stream: RequestStream | undefined,
    run: (handlers: CallHandlers, signal: AbortSignal) => Promise<Params>,
  ): Promise<Params> {
    if (isModern(downstream.protocolVersion)) return this.inputRounds.call(what, params, downstream, signal, run, requestLogger(downstream, stream));
    return run(handlersFor(downstream, stream), signal);
  }

  private async runTool(
    params: Params,
    downstream: Downstream,
    signal: AbortSignal,
    stream: RequestStream | undefined,
    handlers: CallHandlers,
  ): Promise<Params> {
    const name = params.name as string;
    const args = isObject(params.arguments) ? params.arguments : undefined;
    const token = isObject(params._meta) ? (params._meta.progressToken as string | number | undefined) : undefined;
    downstream.calls = (downstream.calls ?? 0) + 1;
    let fallback: { from: string; to: string; reason: string } | undefined;
    // In the downstream session's telemetry context: the spans upstream name its client (src/telemetry/gateway-session.ts).
    const result: CallToolResult = await inGatewaySession(downstream, () =>
      this.board.callTool(this.names.inward(name), args, {
        signal,
        principal: downstream.principal,
        handlers,
        ...modernEnvelope(downstream),
        onFallback: (from: string, to: string, reason: string) => {
          fallback = { from, to, reason };
        },
        onProgress:
          token === undefined || stream === undefined
            ? undefined
            : // The upstream token is the gateway's own: the client gets its token back.
              (p) => stream({ jsonrpc: "2.0", method: "notifications/progress", params: { ...p, progressToken: token } }),
      }),
    );
    if (fallback === undefined) return result;
    return { ...result, _meta: { ...(isObject(result._meta) ? result._meta : {}), [FALLBACK_META_KEY]: fallback } };
  }
}
