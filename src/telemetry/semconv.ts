/**
 * The names this layer records, from the OpenTelemetry semantic conventions: "Semantic conventions for
 * Model Context Protocol (MCP)" and "Semantic conventions for generative client AI spans" (status:
 * development, in the OpenTelemetry GenAI conventions). Copied here, as the conventions package advises
 * for its incubating names, so the runtime needs nothing but `@opentelemetry/api`;
 * test/telemetry/semconv.test.ts checks each against `@opentelemetry/semantic-conventions`.
 */
export const ATTR_MCP_METHOD_NAME = "mcp.method.name";
export const ATTR_MCP_PROTOCOL_VERSION = "mcp.protocol.version";
export const ATTR_MCP_RESOURCE_URI = "mcp.resource.uri";
export const ATTR_MCP_SESSION_ID = "mcp.session.id";
export const ATTR_JSONRPC_REQUEST_ID = "jsonrpc.request.id";
export const ATTR_RPC_RESPONSE_STATUS_CODE = "rpc.response.status_code";
export const ATTR_ERROR_TYPE = "error.type";
export const ATTR_NETWORK_TRANSPORT = "network.transport";
export const ATTR_NETWORK_PROTOCOL_NAME = "network.protocol.name";
export const ATTR_NETWORK_PROTOCOL_VERSION = "network.protocol.version";
export const ATTR_SERVER_ADDRESS = "server.address";
export const ATTR_SERVER_PORT = "server.port";

export const ATTR_GEN_AI_OPERATION_NAME = "gen_ai.operation.name";
export const ATTR_GEN_AI_PROVIDER_NAME = "gen_ai.provider.name";
export const ATTR_GEN_AI_TOOL_NAME = "gen_ai.tool.name";
export const ATTR_GEN_AI_TOOL_CALL_ID = "gen_ai.tool.call.id";
export const ATTR_GEN_AI_TOOL_DESCRIPTION = "gen_ai.tool.description";
export const ATTR_GEN_AI_TOOL_TYPE = "gen_ai.tool.type";
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments";
export const ATTR_GEN_AI_TOOL_CALL_RESULT = "gen_ai.tool.call.result";
export const ATTR_GEN_AI_PROMPT_NAME = "gen_ai.prompt.name";
export const ATTR_GEN_AI_REQUEST_MODEL = "gen_ai.request.model";
export const ATTR_GEN_AI_RESPONSE_MODEL = "gen_ai.response.model";
export const ATTR_GEN_AI_RESPONSE_ID = "gen_ai.response.id";
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = "gen_ai.response.finish_reasons";
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens";
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens";

export const GEN_AI_OPERATION_EXECUTE_TOOL = "execute_tool";
export const GEN_AI_OPERATION_CHAT = "chat";

export const METRIC_MCP_CLIENT_OPERATION_DURATION = "mcp.client.operation.duration";
export const METRIC_MCP_CLIENT_SESSION_DURATION = "mcp.client.session.duration";

/** MCP conventions, both duration metrics: "SHOULD be specified with ExplicitBucketBoundaries of [...]". */
export const MCP_DURATION_BUCKETS: readonly number[] = Object.freeze([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);

/** `error.type` for a `CallToolResult` with `isError: true` (MCP conventions, note on `error.type`). */
export const TOOL_ERROR = "tool_error";
/** `error.type` when the failure is not an Error at all (the conventions' fallback value). */
export const OTHER_ERROR = "_OTHER";
