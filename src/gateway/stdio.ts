/**
 * The board served over stdio (`mcp-switchboard serve --stdio`): one client, the process that started
 * us, speaking newline-delimited JSON (src/framing/ndjson.ts, with its line size limit). Everything the
 * HTTP side sends outside a response (progress, list changes, log messages) goes to stdout as it comes,
 * so stdout carries protocol messages only.
 */
import type { Readable, Writable } from "node:stream";
import { NdjsonDecoder, encodeNdjson } from "../framing/ndjson.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import {
  classifyMessage,
  type JsonRpcId,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from "../jsonrpc/messages.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { VERSION } from "../util/version.js";
import { forwardBoardEvents } from "./board-events.js";
import type { Downstream, LogLevel } from "./downstream.js";
import { GatewayHandler } from "./handler.js";
import { gatewaySettings, type ServeBoardOptions } from "./options.js";
import { showSessions } from "./session-view.js";
import { StdioModern } from "./stdio-modern.js";
import { errorResponse } from "./wire-error.js";

export interface StdioGateway {
  /** Settles when the client closes its end (stdin ends). */
  readonly closed: Promise<void>;
  close(): void;
}

export function serveStdio(board: Switchboard, options: ServeBoardOptions, input: Readable, output: Writable): StdioGateway {
  const settings = gatewaySettings(options, VERSION);
  const handler = new GatewayHandler(board, settings);
  const send = (message: JsonRpcMessage) => output.write(encodeNdjson(message));
  const downstream: Downstream = {
    principal: undefined,
    protocolVersion: "",
    clientInfo: undefined,
    capabilities: undefined,
    startedAt: Date.now(),
    logLevel: undefined as LogLevel | undefined,
    inFlight: new Map<JsonRpcId, AbortController>(),
    // Nothing unasked for before initialize: a 2026 client gets list changes on its listens only.
    push: (message) => {
      if (downstream.protocolVersion !== "") send(message);
    },
  };
  const modern = new StdioModern(handler, send);
  const receive = (value: unknown) => {
    const kind = classifyMessage(value);
    if (kind === "notification") {
      const notification = value as JsonRpcNotification;
      if (notification.method === "notifications/cancelled" && modern.cancel(notification)) return;
      return handler.notify(notification, downstream);
    }
    if (kind === "result" || kind === "error") return void downstream.requests?.answered(value as JsonRpcResponse); // to a server's request
    if (kind === undefined) return send(errorResponse(null, ErrorCode.InvalidRequest, "Invalid Request: expected a JSON-RPC 2.0 message"));
    const request = value as JsonRpcRequest;
    downstream.lastSeen = Date.now();
    if (downstream.inFlight.size + modern.running.size >= settings.maxInFlightPerSession)
      return send(errorResponse(request.id, ErrorCode.ServerError, `Too many requests: ${settings.maxInFlightPerSession} are running`));
    if (modern.claim(request)) return;
    void handler.handle(request, downstream, send).then(send);
  };
  const decoder = new NdjsonDecoder({
    maxFrameBytes: settings.maxBodyBytes,
    onValue: receive,
    onError: (error) => send(errorResponse(null, ErrorCode.ParseError, `Parse error: ${error.message}`)),
  });
  const onData = (chunk: Buffer) => decoder.push(chunk);
  input.on("data", onData);
  const stopEvents = forwardBoardEvents(board, function* () {
    yield downstream;
    yield* modern.listens.values();
  });
  const hideSession = showSessions(board, () => [downstream]);
  const closed = new Promise<void>((resolve) => input.once("end", resolve).once("close", resolve));
  const close = () => {
    stopEvents();
    hideSession();
    input.off("data", onData);
    modern.close();
    handler.subscriptions.release(downstream);
    for (const controller of downstream.inFlight.values()) controller.abort();
    downstream.requests?.close();
  };
  void closed.then(close);
  return { closed, close };
}
