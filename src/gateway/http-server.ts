/**
 * The gateway's Streamable HTTP endpoint (2025-11-25 sessions) on node:http: POST carries the client's
 * messages (answered with JSON, or with server-sent events when the request asked for progress), GET
 * opens the session's stream for messages outside responses, DELETE ends the session. Auth, when set,
 * comes first; then the transport's own checks (Accept 406, Content-Type 415, body size 413, JSON -32700,
 * session 400/404). Bound to loopback, it answers only to loopback Host and Origin names (DNS rebinding).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { classifyMessage, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from "../jsonrpc/messages.js";
import { makeAuthenticate, metadataPath, resourceMetadata, type Authenticate } from "./auth.js";
import type { GatewayHandler } from "./handler.js";
import { accepts, isJsonContent, openEventStream, readBody, ReplyStream, sendError, sendJson } from "./http-io.js";
import type { GatewaySettings } from "./options.js";
import type { Downstream } from "./downstream.js";
import { SessionStore, type Session } from "./sessions.js";
import { StatelessHttp } from "./stateless-http.js";

const SESSION_HEADER = "mcp-session-id";
const LOOPBACK = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d+)?$/;

export function isLoopbackHost(host: string): boolean {
  return host === "::1" || LOOPBACK.test(host);
}

export class GatewayServer {
  readonly server: Server;
  readonly sessions: SessionStore;
  readonly stateless: StatelessHttp;
  private readonly authenticate: Authenticate | undefined;
  private readonly loopback: boolean;
  port = 0;

  constructor(
    private readonly handler: GatewayHandler,
    private readonly settings: GatewaySettings,
    sessions?: SessionStore,
  ) {
    this.authenticate = settings.auth === undefined ? undefined : makeAuthenticate(settings.auth);
    this.sessions = sessions ?? new SessionStore(settings.sessionIdleMs, settings.maxSessions, settings.maxUnreadBytes);
    this.sessions.onEvict = (session) => handler.subscriptions.release(session);
    this.stateless = new StatelessHttp(handler);
    this.loopback = isLoopbackHost(settings.host);
    this.server = createServer((request, response) => {
      this.route(request, response).catch((error: unknown) => {
        if (!response.headersSent) sendError(response, 500, `Internal error: ${(error as Error).message}`, ErrorCode.InternalError);
        else response.end();
      });
    });
  }

  get url(): string {
    const host = this.settings.host.includes(":") ? `[${this.settings.host}]` : this.settings.host;
    return `http://${host}:${this.port}${this.settings.path}`;
  }

  listen(): Promise<void> {
    const { port, host } = this.settings;
    return new Promise((resolve, reject) => {
      const failed = (error: NodeJS.ErrnoException) =>
        reject(new ConfigError(`port ${port} on ${host} cannot be listened on (${error.code ?? error.message})`, { field: "gateway.port", cause: error }));
      this.server.once("error", failed);
      this.server.listen(port, host, () => {
        this.server.off("error", failed);
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** Every client that hears of list changes: the 2025 sessions and the 2026 listens. */
  *downstreams(): Iterable<Downstream> {
    yield* this.sessions.all();
    yield* this.stateless.listens;
  }

  /** The 2026-era listens only: with replicas, the sessions hear the board through the fleet instead. */
  listens(): Iterable<Downstream> {
    return this.stateless.listens;
  }

  async close(): Promise<void> {
    this.sessions.close();
    this.stateless.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (this.loopback && !this.sameSite(request)) return sendError(response, 403, "Forbidden: this gateway answers only to its loopback address");
    const path = (request.url ?? "/").split("?", 1)[0];
    const metadata = this.settings.auth !== undefined && (path === metadataPath(this.settings.path) || path === metadataPath("/"));
    if (metadata && request.method === "GET") return sendJson(response, 200, resourceMetadata(this.settings.auth!, this.resourceUrl(request)));
    if (path !== this.settings.path) return sendError(response, 404, `Not found: the MCP endpoint is ${this.settings.path}`);
    let principal: string | undefined;
    if (this.authenticate !== undefined) {
      principal = await this.authenticate(request);
      if (principal === undefined) return this.unauthorized(request, response);
    }
    switch (request.method) {
      case "POST":
        return this.post(request, response, principal);
      case "GET":
        return this.get(request, response, principal);
      case "DELETE":
        return this.delete(request, response, principal);
      default:
        return sendError(response, 405, "Method not allowed", ErrorCode.ServerError, { allow: "GET, POST, DELETE" });
    }
  }

  private sameSite(request: IncomingMessage): boolean {
    if (!isLoopbackHost(request.headers.host ?? "")) return false;
    const origin = request.headers.origin;
    if (origin === undefined) return true;
    try {
      return isLoopbackHost(new URL(origin).host);
    } catch {
      return false;
    }
  }

  private resourceUrl(request: IncomingMessage): string {
    return request.headers.host === undefined ? this.url : `http://${request.headers.host}${this.settings.path}`;
  }

  private unauthorized(request: IncomingMessage, response: ServerResponse): void {
    const metadataUrl = new URL(metadataPath(this.settings.path), this.resourceUrl(request)).href;
    const invalid = request.headers.authorization === undefined ? "" : ', error="invalid_token"';
    sendError(response, 401, "Unauthorized: a valid bearer token is required", ErrorCode.ServerError, {
      "www-authenticate": `Bearer resource_metadata="${metadataUrl}"${invalid}`,
    });
  }

  /** The session a request names; answers 400 or 404 itself when there is none. Sync when the store is (in memory). */
  private sessionOf(request: IncomingMessage, response: ServerResponse, principal: string | undefined): Session | undefined | Promise<Session | undefined> {
    const id = request.headers[SESSION_HEADER];
    if (typeof id !== "string" || id === "") {
      sendError(response, 400, "Bad Request: Mcp-Session-Id header is required");
      return undefined;
    }
    const found = this.sessions.get(id, principal);
    return found instanceof Promise ? found.then((session) => this.seen(session, response)) : this.seen(found, response);
  }

  private seen(session: Session | undefined, response: ServerResponse): Session | undefined {
    if (session === undefined) sendError(response, 404, "Session not found", -32001);
    else session.lastSeen = Date.now();
    return session;
  }

  private async post(request: IncomingMessage, response: ServerResponse, principal: string | undefined): Promise<void> {
    if (!accepts(request.headers.accept, "application/json") || !accepts(request.headers.accept, "text/event-stream"))
      return sendError(response, 406, "Not Acceptable: the client must accept both application/json and text/event-stream");
    if (!isJsonContent(request.headers["content-type"])) return sendError(response, 415, "Unsupported Media Type: Content-Type must be application/json");
    const body = await readBody(request, this.settings.maxBodyBytes);
    if (body === undefined)
      return sendError(response, 413, `Payload Too Large: the limit is ${this.settings.maxBodyBytes} bytes`, ErrorCode.InvalidRequest, { connection: "close" });
    let message: unknown;
    try {
      message = JSON.parse(body.toString("utf8"));
    } catch {
      return sendError(response, 400, "Parse error: the body is not JSON", ErrorCode.ParseError);
    }
    const kind = classifyMessage(message);
    if (kind === undefined) return sendError(response, 400, "Invalid Request: expected one JSON-RPC 2.0 message", ErrorCode.InvalidRequest);
    if ((kind === "request" || kind === "notification") && StatelessHttp.claims(request, message as JsonRpcNotification))
      return this.stateless.post(request, response, message as JsonRpcRequest | JsonRpcNotification, principal);
    if (kind === "request" && (message as JsonRpcRequest).method === "initialize") return this.initialize(message as JsonRpcRequest, response, principal);
    const found = this.sessionOf(request, response, principal);
    const session = found instanceof Promise ? await found : found;
    if (session === undefined) return;
    if (kind !== "request") {
      if (kind === "notification") {
        this.handler.notify(message as JsonRpcNotification, session);
        this.sessions.notified(session, message as JsonRpcNotification);
      } else if (!this.handler.answered(message as JsonRpcResponse, session)) this.sessions.answeredElsewhere(session, message as JsonRpcResponse);
      response.writeHead(202).end();
      return;
    }
    return this.request(message as JsonRpcRequest, session, response);
  }

  private async initialize(message: JsonRpcRequest, response: ServerResponse, principal: string | undefined): Promise<void> {
    const session = this.sessions.open(principal);
    if (session === undefined)
      return sendError(response, 503, "Service Unavailable: the gateway holds as many sessions as it may", ErrorCode.ServerError, { "retry-after": "5" });
    const result = this.handler.initialize(message.params ?? {}, session);
    await this.sessions.save(session);
    sendJson(response, 200, { jsonrpc: "2.0", id: message.id, result }, { [SESSION_HEADER]: session.id });
  }

  private async request(message: JsonRpcRequest, session: Session, response: ServerResponse): Promise<void> {
    if (session.inFlight.size >= this.settings.maxInFlightPerSession)
      return sendJson(response, 429, {
        jsonrpc: "2.0",
        id: message.id,
        error: {
          code: ErrorCode.ServerError,
          message: `Too many requests: this session has ${session.inFlight.size} running (limit ${this.settings.maxInFlightPerSession})`,
        },
      });
    const meta = message.params?._meta as Record<string, unknown> | undefined;
    // Progress, and a server's request the call causes, ride on the request's own event stream, opened
    // when the first comes (at once for a progress token); then the response ends it. Else: JSON.
    const reply = new ReplyStream(response, this.settings.maxUnreadBytes);
    if (meta?.progressToken !== undefined) reply.open();
    const answer = await this.handler.handle(message, session, reply.send);
    // A request that changed the session's state saves it before the answer (replicas read it there).
    if (message.method === "logging/setLevel") await this.sessions.save(session);
    reply.end(answer);
  }

  private async get(request: IncomingMessage, response: ServerResponse, principal: string | undefined): Promise<void> {
    if (!accepts(request.headers.accept, "text/event-stream")) return sendError(response, 406, "Not Acceptable: the client must accept text/event-stream");
    const session = await this.sessionOf(request, response, principal);
    if (session === undefined) return;
    if (session.stream !== undefined) return sendError(response, 409, "Conflict: this session already has a stream open");
    openEventStream(response, { [SESSION_HEADER]: session.id });
    const lastEventId = request.headers["last-event-id"];
    session.attach(response, typeof lastEventId === "string" ? lastEventId : undefined);
  }

  private async delete(request: IncomingMessage, response: ServerResponse, principal: string | undefined): Promise<void> {
    const session = await this.sessionOf(request, response, principal);
    if (session === undefined) return;
    await this.sessions.delete(session);
    response.writeHead(200).end();
  }
}
