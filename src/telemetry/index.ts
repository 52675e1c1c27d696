/**
 * `mcp-switchboard/telemetry`: OpenTelemetry per the MCP semantic conventions. Needs the optional peer
 * dependency `@opentelemetry/api`; see docs/guide/telemetry.md, "Telemetry".
 *
 * @module mcp-switchboard/telemetry
 */
export { otelInstrumentation, OtelTelemetry, INSTRUMENTATION_SCOPE, type OtelInstrumentationOptions } from "./otel-instrumentation.js";
export { toolSpanContext } from "./tool-scope.js";
export type { ToolExecutionInfo, ModelCallInfo, ModelResponseInfo, ModelCallRecorder } from "./agent-spans.js";
export type { Instrumentation, ConnectionObserver, MessageObserver, SessionFacts } from "../connection/instrumentation.js";
export { MCP_DURATION_BUCKETS } from "./semconv.js";
