/**
 * Everything the server sends, routed: a response settles its pending request (or is reported when no
 * request waits for it), progress reaches the request it reports on (the token is the request's id, in
 * both eras), a server request is answered through the client's handler, and a notification becomes
 * what the era's rules make of it, then a `notification` event.
 */
import { ErrorCode } from "../jsonrpc/codes.js";
import { McpError, ProtocolError } from "../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/messages.js";
import { asError } from "../util/guards.js";
import { deliveryRequest } from "../util/request-context.js";
import type { EraRules, Result, ServerRequestHandler, Wire } from "./eras/dialect.js";
import type { LogParams, ProgressParams } from "./events.js";
import type { RequestTable } from "./request-table.js";

export interface InboundHost {
  /** The rules of the era in force (negotiation's until one is decided). */
  rules(): EraRules;
  emit: Wire["emit"];
  /** Sends an answer to a server request. */
  send(message: JsonRpcMessage): Promise<void>;
}

/** The handler of a connection without one: every server request is answered "method not found". */
export const methodNotFound: ServerRequestHandler = (method) =>
  Promise.reject(new ProtocolError(`Method not found: this client has no handler for ${method}`, ErrorCode.MethodNotFound));

export class Inbound {
  /** Server requests whose handler runs, by id: aborted when the server cancels one or the connection ends. */
  private handling: Map<JsonRpcId, AbortController> | undefined; // made for the first server request

  constructor(
    private readonly table: RequestTable,
    private readonly handler: ServerRequestHandler,
    private readonly host: InboundHost,
  ) {}

  /** Server requests being handled. */
  get size(): number {
    return this.handling?.size ?? 0;
  }

  dispatch(message: JsonRpcMessage): void {
    if ("method" in message) {
      if ("id" in message) this.onRequest(message);
      else this.onNotification(message);
      return;
    }
    if (!this.table.settle(message)) this.onUnmatched(message);
  }

  /** The server cancelled its request `id`: the handler's signal aborts and no answer is sent. */
  cancel(id: JsonRpcId, reason: Error): void {
    this.handling?.get(id)?.abort(reason);
  }

  /** The connection ends: every running handler's signal aborts. */
  abortAll(reason: Error): void {
    const handling = this.handling;
    if (handling === undefined) return;
    this.handling = undefined;
    for (const controller of handling.values()) controller.abort(reason);
  }

  private onUnmatched(response: JsonRpcResponse): void {
    if ("error" in response && response.id === null) {
      this.host.emit(
        "error",
        new ProtocolError(`Server reported an error not tied to a request: ${response.error.message}`, response.error.code, response.error.data),
      );
      return;
    }
    this.host.emit(
      "error",
      new McpError(`Response for unknown request id ${JSON.stringify(response.id)} (late after a timeout or cancellation, or never sent); ignored`),
    );
  }

  private onNotification({ method, params }: JsonRpcNotification): void {
    if (method === "notifications/progress") {
      const progress = params as ProgressParams;
      this.table.progress(progress?.progressToken, progress);
      this.host.emit("progress", progress);
    } else {
      if (method === "notifications/message") this.toOrigin(params as LogParams);
      this.host.rules().onNotification(method, params);
    }
    this.host.emit("notification", { method, params });
  }

  /**
   * A log from a call's own stream goes to that call's `onLog` too (src/client/call-handlers.ts); one
   * from no request's stream (stdio, a GET stream), to the connection's one pending call when it is
   * the only one, as a server request does. Either way it is the connection's `log` too.
   */
  private toOrigin(params: LogParams): void {
    const origin = this.table.originFor(deliveryRequest()) as { onLog?: (params: LogParams) => void } | undefined;
    if (origin?.onLog === undefined) return;
    try {
      origin.onLog(params);
    } catch (error) {
      this.host.emit("error", new McpError(`A call's onLog handler failed: ${asError(error).message}`, { cause: error }));
    }
  }

  private onRequest(request: JsonRpcRequest): void {
    const refusal = this.host.rules().refuseServerRequest(request.method);
    if (refusal !== undefined) {
      this.host.emit("error", refusal);
      return;
    }
    if (request.method === "ping") {
      this.respond(request.id, {});
      return;
    }
    const controller = new AbortController();
    const handling = (this.handling ??= new Map());
    handling.set(request.id, controller);
    let handled: Promise<Result>;
    try {
      // Read now, while the message's delivery runs: a request from a call's own stream names that call.
      handled = this.handler(request.method, request.params ?? {}, controller.signal, undefined, this.table.originFor(deliveryRequest()));
    } catch (error) {
      handled = Promise.reject(error);
    }
    handled.then(
      (result) => {
        handling.delete(request.id);
        if (!controller.signal.aborted) this.respond(request.id, result);
      },
      (error: unknown) => {
        handling.delete(request.id);
        if (controller.signal.aborted) return; // the spec: no response to a cancelled request
        const text = asError(error).message;
        if (error instanceof ProtocolError) {
          this.respondError(request.id, error.code, text, error.data);
          return;
        }
        this.host.emit("error", new McpError(`Handler for ${request.method} failed: ${text}`, { cause: error }));
        this.respondError(request.id, ErrorCode.InternalError, text);
      },
    );
  }

  private respond(id: JsonRpcId, result: Result): void {
    this.host.send({ jsonrpc: "2.0", id, result }).catch((error) => this.host.emit("error", asError(error)));
  }

  private respondError(id: JsonRpcId, code: number, message: string, data?: unknown): void {
    const error = data === undefined ? { code, message } : { code, message, data };
    this.host.send({ jsonrpc: "2.0", id, error }).catch((e) => this.host.emit("error", asError(e)));
  }
}
