/**
 * What the client sends. Every request starts here and nowhere else: it gets an id and a RequestTable
 * entry (which settles it, always: response, deadline, abort or the connection's end) before it goes
 * to the transport. A hook that must see every request and its outcome belongs in `exchange`.
 *
 * Requests the server refused because it forgot the session (HTTP 404) never ran: they wait here and
 * go again, unchanged, once the new session is ready.
 */
import { IdAllocator } from "../jsonrpc/ids.js";
import { EncodingError, McpError, SessionExpiredError, TransportError } from "../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest } from "../jsonrpc/messages.js";
import { SENT, type SendOptions, type Transport } from "../transports/transport.js";
import { asError } from "../util/guards.js";
import type { Params, Result } from "./eras/dialect.js";
import type { ConnectionObserver } from "./instrumentation.js";
import type { RequestOptions } from "./request-options.js";
import type { RequestTable } from "./request-table.js";

export interface OutboundHost {
  /** The transport under the connection now. */
  readonly transport: Transport;
  /** A request was refused because the server forgot the session: a new session is needed. */
  sessionExpired(error: SessionExpiredError): void;
}

interface Resend {
  message: JsonRpcRequest;
  send: SendOptions | undefined;
}

export class Outbound {
  private readonly ids = new IdAllocator();
  /** Made when the server first forgets a session with requests pending. */
  private resends: Map<JsonRpcId, Resend> | undefined;

  constructor(
    private readonly table: RequestTable,
    private readonly requestTimeoutMs: number,
    private readonly host: OutboundHost,
    /** Telemetry (instrumentation.ts); undefined when off, which costs one check per message. */
    private readonly observer?: ConnectionObserver,
  ) {}

  request(method: string, params: Params | undefined, options?: RequestOptions, send?: SendOptions): Promise<Result> {
    return this.exchange(this.ids.allocate(), method, params, options, send);
  }

  requestWithId(method: string, params: Params | undefined, options?: RequestOptions, send?: SendOptions): { id: JsonRpcId; result: Promise<Result> } {
    const id = this.ids.allocate();
    return { id, result: this.exchange(id, method, params, options, send) };
  }

  notify(method: string, params?: Params, send?: SendOptions): Promise<void> {
    const observed = this.observer?.outgoing(method, undefined, params);
    if (observed !== undefined) params = observed.params;
    const message: JsonRpcNotification = params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    const sent = this.host.transport.send(message, send);
    if (observed !== undefined) sent.then(observed.succeeded, observed.failed);
    return sent;
  }

  /** Whether the pending request `id` waits to go again on the new session. */
  awaitsResend(id: JsonRpcId): boolean {
    return this.resends?.has(id) ?? false;
  }

  /** Sends again, on the new session, the requests the old one refused that are still pending. */
  resend(): void {
    const resends = this.resends;
    if (resends === undefined) return;
    this.resends = undefined;
    for (const [id, { message, send }] of resends) {
      if (this.table.has(id)) this.transmit(this.host.transport, id, message, send); // else settled meanwhile (timeout, abort)
    }
  }

  private exchange(
    id: JsonRpcId,
    method: string,
    params: Params | undefined,
    options: RequestOptions | undefined,
    send: SendOptions | undefined,
  ): Promise<Result> {
    if (options !== undefined && (options.onProgress !== undefined || options.resetTimeoutOnProgress)) {
      params = withProgressToken(params, id);
    }
    const observed = this.observer?.outgoing(method, id, params);
    if (observed !== undefined) params = observed.params;
    // One field check: only a request with its own credential pays for a copy.
    if (options?.auth !== undefined) send = { ...send, auth: options.auth };
    const transport = this.host.transport;
    const exchange = transport.cancelsByAbort?.() ? new AbortController() : undefined;
    const promise = this.table.add(id, method, options, this.requestTimeoutMs, exchange);
    if (observed !== undefined) promise.then(observed.succeeded, observed.failed);
    if (!this.table.has(id)) return promise; // already aborted: nothing to send
    const message: JsonRpcRequest = params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
    this.transmit(transport, id, message, exchange ? { ...send, signal: exchange.signal } : send);
    return promise;
  }

  private transmit(transport: Transport, id: JsonRpcId, message: JsonRpcRequest, send: SendOptions | undefined): void {
    let sent: ReturnType<Transport["send"]>;
    try {
      sent = transport.send(message, send);
    } catch (error) {
      // A transport that throws instead of rejecting: the request must still settle, not linger.
      this.sendFailed(id, error, message, send);
      return;
    }
    if (sent !== SENT) sent.then(undefined, (error) => this.sendFailed(id, error, message, send));
  }

  private sendFailed(id: JsonRpcId, error: unknown, message: JsonRpcRequest, send: SendOptions | undefined): void {
    // The server forgot the session and refused this request: it never ran, so it goes again, unchanged,
    // on the new session instead of failing.
    if (error instanceof SessionExpiredError && this.table.has(id) && message.method !== "initialize") {
      (this.resends ??= new Map()).set(id, { message, send });
      this.host.sessionExpired(error);
      return;
    }
    const unencodable = error instanceof McpError ? undefined : encodingProblem(message);
    const failure =
      error instanceof McpError
        ? error
        : unencodable !== undefined
          ? new EncodingError(`${message.method} cannot be sent: its params are not JSON (${unencodable}); nothing was sent`, { cause: error })
          : new TransportError(`Sending request ${String(id)} failed: ${asError(error).message}`, { cause: error, delivered: false });
    this.table.reject(id, failure);
  }
}

/**
 * Why `message` cannot be written as JSON, or undefined when it can. Asked only after a send failed,
 * so a caller's BigInt or cycle is told apart from a broken transport without encoding twice per send.
 */
function encodingProblem(message: JsonRpcRequest): string | undefined {
  try {
    JSON.stringify(message);
    return undefined;
  } catch (error) {
    return asError(error).message;
  }
}

function withProgressToken(params: Params | undefined, token: JsonRpcId): Params {
  const meta = params?._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: meta ? { ...meta, progressToken: token } : { progressToken: token } };
}
