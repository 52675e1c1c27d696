/**
 * A tool-execution span that MCP enriches. The MCP conventions (Client span): "If the MCP
 * instrumentation can reliably detect that outer GenAI instrumentation is already tracing the tool
 * execution, it SHOULD NOT create a separate span. Instead, it SHOULD add MCP-specific attributes to
 * the existing tool execution span." Reliable here means: the span was marked with `toolSpanContext`
 * (the agent helpers do it) and is the active span when the `tools/call` goes out.
 */
import type { Context, Span } from "@opentelemetry/api";
import { otelApi, type OtelApi } from "./otel-api.js";

export interface ToolScope {
  readonly span: Span;
  /** The first `tools/call` inside takes the span; more (a retry, a fallback) get CLIENT spans of their own. */
  claimed: boolean;
  /** toolExecution() records the outcome itself; a span the caller opened gets the MCP call's. */
  readonly managed: boolean;
}

const TOOL_SCOPE = Symbol.for("mcp-switchboard.telemetry.tool-scope");

/**
 * A context in which `span` is active and is the tool execution an MCP `tools/call` enriches. For
 * tool spans opened by other code (an agent framework); `toolExecution()` does this itself.
 */
export function toolSpanContext(span: Span, parent?: Context): Context {
  return scopedContext(otelApi(), span, parent, false);
}

export function scopedContext(api: OtelApi, span: Span, parent: Context | undefined, managed: boolean): Context {
  const scope: ToolScope = { span, claimed: false, managed };
  return api.trace.setSpan(parent ?? api.context.active(), span).setValue(TOOL_SCOPE, scope);
}

/** The tool scope of `context` if a `tools/call` may take it now (and takes it), else undefined. */
export function claimToolScope(api: OtelApi, context: Context): ToolScope | undefined {
  const scope = context.getValue(TOOL_SCOPE) as ToolScope | undefined;
  if (scope === undefined || scope.claimed || api.trace.getSpan(context) !== scope.span) return undefined;
  scope.claimed = true;
  return scope;
}
