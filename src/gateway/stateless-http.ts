/**
 * The 2026-07-28 era on the gateway's Streamable HTTP endpoint: a POST without a session whose
 * `MCP-Protocol-Version` header or envelope names a version is answered here, statelessly. The headers
 * must agree with the body (-32020), the envelope must be whole (-32602) and of a version the gateway
 * speaks (-32022), all with HTTP 400; an unknown or removed method is 404 with -32601. Closing a
 * response cancels its request. `subscriptions/listen` keeps its response open as an event stream.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { META_PROTOCOL_VERSION, mcpNameOf } from "../connection/eras/modern-wire.js";
import { isModern } from "../connection/eras/versions.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/messages.js";
import type { GatewayHandler } from "./handler.js";
import { openEventStream, ReplyStream, sendJson, writeEvent, writeEventOrCut } from "./http-io.js";
import { Listen } from "./listens.js";
import { answerModern, envelopeOf, envelopeProblem, requestDownstream, versionProblem } from "./modern.js";
import { errorResponse } from "./wire-error.js";

const WRAPPED = /^=\?base64\?(.*)\?=$/i;

/** A header value as sent (`=?base64?...?=` decoded). */
function headerValue(value: string): string {
  const wrapped = WRAPPED.exec(value);
  return wrapped === null ? value : Buffer.from(wrapped[1]!, "base64").toString("utf8");
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** Errors a 2026 client gets with HTTP 400: its request is malformed, not merely unanswerable. */
const BAD_REQUEST: ReadonlySet<number> = new Set([ErrorCode.HeaderMismatch, ErrorCode.MissingRequiredClientCapability, ErrorCode.UnsupportedProtocolVersion]);

function missingVersionHeader(request: IncomingMessage): JsonRpcErrorObject | undefined {
  if (request.headers["mcp-protocol-version"] !== undefined) return undefined;
  return { code: ErrorCode.HeaderMismatch, message: "Header mismatch: the MCP-Protocol-Version header is missing" };
}

/** The HTTP status of a 2026 response: 404 for an unknown method, 400 for a malformed request. */
function statusOf(response: JsonRpcResponse): number {
  if (!("error" in response)) return 200;
  if (response.error.code === ErrorCode.MethodNotFound) return 404;
  return BAD_REQUEST.has(response.error.code) ? 400 : 200;
}

export class StatelessHttp {
  /** The listens open now; the board's events reach them (board-events.ts). */
  readonly listens = new Set<Listen>();
  /** Requests running per client connection: the stateless stand-in for the per-session limit. */
  private readonly running = new WeakMap<Socket, number>();

  constructor(private readonly handler: GatewayHandler) {}

  /** Whether a POST belongs to the 2026 era: no session, and a version in its header or envelope. */
  static claims(request: IncomingMessage, message: JsonRpcRequest | JsonRpcNotification): boolean {
    if (request.headers["mcp-session-id"] !== undefined) return false;
    // A 2025 client without a session (its initialize, or a request after losing it) names a 2025
    // version in the header, if any, and sends no envelope: the session era's checks answer it.
    return isModern(single(request.headers["mcp-protocol-version"])) || envelopeOf(message.params)?.[META_PROTOCOL_VERSION] !== undefined;
  }

  async post(request: IncomingMessage, response: ServerResponse, message: JsonRpcRequest | JsonRpcNotification, principal: string | undefined): Promise<void> {
    // The era defines no notifications from the client over HTTP (a request is cancelled by closing it).
    if (!("id" in message)) return void response.writeHead(202).end();
    const envelope = envelopeOf(message.params);
    const problem = missingVersionHeader(request) ?? envelopeProblem(envelope) ?? this.headerProblem(request, message) ?? versionProblem(envelope!);
    if (problem !== undefined) return sendJson(response, 400, { jsonrpc: "2.0", id: message.id, error: problem });
    const downstream = requestDownstream(envelope!, principal);
    if (message.method === "subscriptions/listen") {
      // Each listen holds a connection and its subscriptions for as long as the client likes, so they
      // are bounded as the 2025 sessions are, which hold the same.
      if (this.listens.size >= this.handler.settings.maxSessions)
        return sendJson(response, 503, errorResponse(message.id, ErrorCode.ServerError, "Service Unavailable: the gateway holds as many listens as it may"), {
          "retry-after": "5",
        });
      return this.listen(message, response, downstream.protocolVersion, downstream.clientInfo, principal);
    }
    const socket = request.socket;
    const running = this.running.get(socket) ?? 0;
    const limit = this.handler.settings.maxInFlightPerSession;
    if (running >= limit)
      return sendJson(response, 429, {
        jsonrpc: "2.0",
        id: message.id,
        error: { code: ErrorCode.ServerError, message: `Too many requests: this connection has ${running} running (limit ${limit})` },
      });
    this.running.set(socket, running + 1);
    // The client cancels a 2026 request by closing its response.
    const cancel = () => downstream.inFlight.get(message.id)?.abort();
    response.once("close", cancel);
    try {
      // JSON unless something comes before the answer (progress, log messages): then an event stream.
      const reply = new ReplyStream(response, this.handler.settings.maxUnreadBytes);
      const answer = await answerModern(this.handler, message, downstream, reply.send);
      reply.end(answer, statusOf(answer));
    } finally {
      response.off("close", cancel);
      this.running.set(socket, (this.running.get(socket) ?? 1) - 1);
    }
  }

  close(): void {
    for (const listen of this.listens) this.handler.subscriptions.release(listen);
    this.listens.clear();
    this.handler.inputRounds.close();
  }

  /** The headers disagree with the body: -32020 (HeaderMismatch). */
  private headerProblem(request: IncomingMessage, message: JsonRpcRequest): JsonRpcErrorObject | undefined {
    const version = single(request.headers["mcp-protocol-version"]);
    if (version !== envelopeOf(message.params)?.[META_PROTOCOL_VERSION])
      return { code: ErrorCode.HeaderMismatch, message: `Header mismatch: MCP-Protocol-Version ${version} is not the version in params._meta` };
    const method = single(request.headers["mcp-method"]);
    if (method !== undefined && method !== message.method)
      return { code: ErrorCode.HeaderMismatch, message: `Header mismatch: Mcp-Method ${method} is not the request's method ${message.method}` };
    const name = single(request.headers["mcp-name"]);
    if (name !== undefined && headerValue(name) !== mcpNameOf(message.method, message.params))
      return { code: ErrorCode.HeaderMismatch, message: `Header mismatch: Mcp-Name is not the name or URI in the request's params` };
    return undefined;
  }

  private async listen(
    message: JsonRpcRequest,
    response: ServerResponse,
    version: string,
    clientInfo: { name?: unknown; version?: unknown } | undefined,
    principal: string | undefined,
  ): Promise<void> {
    const id: JsonRpcId = message.id;
    const maxUnread = this.handler.settings.maxUnreadBytes;
    const listen = new Listen(id, principal, version, clientInfo, message.params?.notifications, (notification) => {
      // A listen's notifications are signals to refetch: one cut for being too far behind is heard
      // again as the client listens anew and refetches (what the 2026 spec asks after any cut).
      writeEventOrCut(response, notification, maxUnread);
    });
    const closed = new AbortController();
    response.once("close", () => {
      closed.abort();
      this.listens.delete(listen);
      this.handler.subscriptions.release(listen);
    });
    openEventStream(response);
    this.listens.add(listen);
    await listen.subscribe(this.handler.subscriptions, closed.signal);
    if (!closed.signal.aborted) writeEvent(response, listen.acknowledgement());
    else this.handler.subscriptions.release(listen);
  }
}
