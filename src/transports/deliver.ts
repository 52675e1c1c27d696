/**
 * Handing decoded values to the connection, the same way on every transport: a value that is not a
 * JSON-RPC 2.0 message is an error event naming who sent it (and never stops the stream).
 */
import { classifyMessage, type JsonRpcId, type JsonRpcMessage } from "../jsonrpc/messages.js";
import { FramingError, sampleJson, sampleOf } from "../framing/errors.js";
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

/**
 * Delivers the messages of a JSON reply (from `from`). For a request, says what is wrong when the body
 * does not hold its response (undefined when it does); a notification's reply only reports a bad body.
 */
export function deliverJsonBody(sink: TransportSink | undefined, body: string, requestId: JsonRpcId | undefined, from: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    value = jsonLines(body);
    if (value === undefined) {
      const problem = `a JSON body that does not parse (${(error as Error).message})`;
      if (requestId !== undefined) return problem;
      sink?.error(new FramingError(`${from} sent ${problem}`, sampleOf(body)));
      return undefined;
    }
  }
  if (!Array.isArray(value)) {
    // One message, the usual reply: no array around it.
    const delivered = deliver(sink, value, from);
    return requestId === undefined || (delivered && answers(value, requestId)) ? undefined : `JSON that holds no response to request ${String(requestId)}`;
  }
  let answered = false;
  for (const item of value) if (deliver(sink, item, from) && answers(item, requestId)) answered = true;
  return requestId === undefined || answered ? undefined : `JSON that holds no response to request ${String(requestId)}`;
}

/**
 * A body of one JSON value per line (a server that streams a request's notifications and then its
 * response under application/json, as the conformance runners' reference server does): the values, in
 * order, or undefined when it is not that either. Only tried once the body failed to parse as one value.
 */
function jsonLines(body: string): unknown[] | undefined {
  const lines = body.split("\n").filter((line) => line.trim() !== "");
  if (lines.length < 2) return undefined;
  try {
    return lines.map((line) => JSON.parse(line) as unknown);
  } catch {
    return undefined;
  }
}
