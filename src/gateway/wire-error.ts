/**
 * A failure as the downstream client gets it: a JSON-RPC error object. An upstream server's own error
 * keeps its code; a bad configuration or argument is InvalidParams; anything else (a server that is down,
 * a timeout) is InternalError with the message, which names the server but never a credential.
 */
import { ErrorCode } from "../jsonrpc/codes.js";
import { ConfigError, ProtocolError, RequestCancelledError, RequestTimeoutError } from "../jsonrpc/errors.js";
import type { JsonRpcErrorObject, JsonRpcErrorResponse, JsonRpcId } from "../jsonrpc/messages.js";

export function wireError(error: unknown): JsonRpcErrorObject {
  if (error instanceof ProtocolError)
    return error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data };
  if (error instanceof ConfigError) return { code: ErrorCode.InvalidParams, message: error.message };
  if (error instanceof RequestCancelledError) return { code: ErrorCode.ServerError, message: "Request cancelled" };
  if (error instanceof RequestTimeoutError) return { code: ErrorCode.ServerError, message: error.message };
  return { code: ErrorCode.InternalError, message: error instanceof Error ? error.message : String(error) };
}

export function errorResponse(id: JsonRpcId | null, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}
