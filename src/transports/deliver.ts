/**
 * Handing decoded values to the connection, the same way on every transport: a value that is not a
 * JSON-RPC 2.0 message is an error event naming who sent it (and never stops the stream).
 */
import { classifyMessage, type JsonRpcId, type JsonRpcMessage } from "../jsonrpc/messages.js";
import { FramingError, sampleJson } from "../framing/errors.js";
import type { TransportSink } from "./transport.js";

/** Delivers `value` if it is a JSON-RPC message (true); else reports it as sent by `from` (false). */
export function deliver(sink: TransportSink | undefined, value: unknown, from: string): boolean {
  if (classifyMessage(value) === undefined) {
    sink?.error(new FramingError(`${from} sent JSON that is not a JSON-RPC 2.0 message; ignored`, sampleJson(value)));
    return false;
  }
  sink?.message(value as JsonRpcMessage);
  return true;
}

/** Whether a delivered JSON-RPC message is the response to `requestId`. */
export function answers(message: unknown, requestId: JsonRpcId | undefined): boolean {
  return requestId !== undefined && !("method" in (message as object)) && (message as { id?: unknown }).id === requestId;
}
