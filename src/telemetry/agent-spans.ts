/**
 * Spans for an agent loop, per "Semantic conventions for generative client AI spans": a model call
 * (inference span, `{gen_ai.operation.name} {gen_ai.request.model}`, CLIENT) and each tool execution
 * ("Execute tool span", `execute_tool {gen_ai.tool.name}`, INTERNAL). An MCP `tools/call` made inside a
 * tool execution adds its MCP attributes to that span instead of opening a second one (tool-scope.ts).
 */
import type { Attributes, Span, Tracer } from "@opentelemetry/api";
import type { OtelApi } from "./otel-api.js";
import { failureOutcome, isToolErrorResult, recordOutcome, TOOL_ERROR_OUTCOME } from "./outcome.js";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_DESCRIPTION,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_TOOL_TYPE,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  GEN_AI_OPERATION_CHAT,
  GEN_AI_OPERATION_EXECUTE_TOOL,
} from "./semconv.js";
import { scopedContext } from "./tool-scope.js";

export interface ToolExecutionInfo {
  /** `gen_ai.tool.name`: the name the model called (a Switchboard's namespaced name, say). */
  name: string;
  /** `gen_ai.tool.call.id`: the model's id for this call. */
  callId?: string;
  /** `gen_ai.tool.description`. */
  description?: string;
  /** `gen_ai.tool.type`: `function`, `extension` or `datastore`. */
  type?: string;
}

export interface ModelCallInfo {
  /** `gen_ai.provider.name`: `openai`, `anthropic`, `gcp.gemini`, ... (required by the conventions). */
  provider: string;
  /** `gen_ai.request.model`. */
  model?: string;
  /** `gen_ai.operation.name` (default `chat`). */
  operation?: string;
  /** `server.address` / `server.port` of the model's API. */
  serverAddress?: string;
  serverPort?: number;
}

export interface ModelResponseInfo {
  /** `gen_ai.response.model`. */
  model?: string;
  /** `gen_ai.response.id`. */
  id?: string;
  /** `gen_ai.response.finish_reasons`. */
  finishReasons?: string[];
  /** `gen_ai.usage.input_tokens`. */
  inputTokens?: number;
  /** `gen_ai.usage.output_tokens`. */
  outputTokens?: number;
}

/** Given to a model call's function: its span, and where to say what the model answered. */
export interface ModelCallRecorder {
  readonly span: Span;
  response(info: ModelResponseInfo): void;
}

export async function runToolExecution<T>(
  api: OtelApi,
  tracer: Tracer,
  tool: ToolExecutionInfo,
  fn: (span: Span) => Promise<T> | T,
  isError: (value: T) => boolean = isToolErrorResult,
): Promise<T> {
  const attributes: Attributes = { [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_EXECUTE_TOOL, [ATTR_GEN_AI_TOOL_NAME]: tool.name };
  if (tool.callId !== undefined) attributes[ATTR_GEN_AI_TOOL_CALL_ID] = tool.callId;
  if (tool.description !== undefined) attributes[ATTR_GEN_AI_TOOL_DESCRIPTION] = tool.description;
  if (tool.type !== undefined) attributes[ATTR_GEN_AI_TOOL_TYPE] = tool.type;
  const span = tracer.startSpan(`${GEN_AI_OPERATION_EXECUTE_TOOL} ${tool.name}`, { kind: api.SpanKind.INTERNAL, attributes });
  try {
    const result = await api.context.with(scopedContext(api, span, undefined, true), fn, undefined, span);
    if (isError(result)) recordOutcome(api, span, TOOL_ERROR_OUTCOME);
    return result;
  } catch (error) {
    recordOutcome(api, span, failureOutcome(error));
    throw error;
  } finally {
    span.end();
  }
}

export async function runModelCall<T>(api: OtelApi, tracer: Tracer, call: ModelCallInfo, fn: (recorder: ModelCallRecorder) => Promise<T> | T): Promise<T> {
  const operation = call.operation ?? GEN_AI_OPERATION_CHAT;
  const attributes: Attributes = { [ATTR_GEN_AI_OPERATION_NAME]: operation, [ATTR_GEN_AI_PROVIDER_NAME]: call.provider };
  if (call.model !== undefined) attributes[ATTR_GEN_AI_REQUEST_MODEL] = call.model;
  if (call.serverAddress !== undefined) attributes[ATTR_SERVER_ADDRESS] = call.serverAddress;
  if (call.serverPort !== undefined) attributes[ATTR_SERVER_PORT] = call.serverPort;
  const span = tracer.startSpan(call.model === undefined ? operation : `${operation} ${call.model}`, { kind: api.SpanKind.CLIENT, attributes });
  const recorder: ModelCallRecorder = { span, response: (info) => span.setAttributes(responseAttributes(info)) };
  try {
    return await api.context.with(api.trace.setSpan(api.context.active(), span), fn, undefined, recorder);
  } catch (error) {
    recordOutcome(api, span, failureOutcome(error));
    throw error;
  } finally {
    span.end();
  }
}

function responseAttributes(info: ModelResponseInfo): Attributes {
  const attributes: Attributes = {};
  if (info.model !== undefined) attributes[ATTR_GEN_AI_RESPONSE_MODEL] = info.model;
  if (info.id !== undefined) attributes[ATTR_GEN_AI_RESPONSE_ID] = info.id;
  if (info.finishReasons !== undefined) attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS] = info.finishReasons;
  if (info.inputTokens !== undefined) attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS] = info.inputTokens;
  if (info.outputTokens !== undefined) attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS] = info.outputTokens;
  return attributes;
}
