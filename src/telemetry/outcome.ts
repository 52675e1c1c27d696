/**
 * How a failed operation is recorded, the same for an MCP call and the tool execution around it:
 * `error.type` is the JSON-RPC error code for an error response ("SHOULD be set to the string
 * representation of the JSON-RPC error code"), `tool_error` for a tool result with `isError: true`, and
 * otherwise the error's class name (`RequestTimeoutError`, `ConnectionClosedError`, `TransportError`, ...:
 * low cardinality, listed in docs/guide/telemetry.md "Telemetry"); the span status is ERROR with the error's message.
 */
import type { Attributes, Span } from "@opentelemetry/api";
import { ProtocolError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";
import type { OtelApi } from "./otel-api.js";
import { ATTR_ERROR_TYPE, ATTR_RPC_RESPONSE_STATUS_CODE, OTHER_ERROR, TOOL_ERROR } from "./semconv.js";

export interface Outcome {
  /** `error.type` and, for a JSON-RPC error, `rpc.response.status_code`. */
  attributes: Attributes;
  /** The span status description. */
  description: string | undefined;
}

export const TOOL_ERROR_OUTCOME: Outcome = { attributes: { [ATTR_ERROR_TYPE]: TOOL_ERROR }, description: undefined };

export function failureOutcome(error: unknown): Outcome {
  if (error instanceof ProtocolError) {
    const code = String(error.code);
    // "The status description SHOULD match the JSONRPCError.message": the server's words, without our prefix.
    return {
      attributes: { [ATTR_ERROR_TYPE]: code, [ATTR_RPC_RESPONSE_STATUS_CODE]: code },
      description: error.message.replace(/^Server error -?\d+(?: \([^)]*\))?: /, ""),
    };
  }
  if (error instanceof Error) return { attributes: { [ATTR_ERROR_TYPE]: error.name }, description: error.message };
  return { attributes: { [ATTR_ERROR_TYPE]: OTHER_ERROR }, description: undefined };
}

/** A `CallToolResult` that reports a failure. */
export function isToolErrorResult(result: unknown): boolean {
  return isObject(result) && result.isError === true;
}

/** "Span status SHOULD be set to ERROR when error.type attribute is present." */
export function recordOutcome(api: OtelApi, span: Span, outcome: Outcome): void {
  span.setAttributes(outcome.attributes);
  span.setStatus(outcome.description === undefined ? { code: api.SpanStatusCode.ERROR } : { code: api.SpanStatusCode.ERROR, message: outcome.description });
}
