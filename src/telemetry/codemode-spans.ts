/**
 * Code mode's spans, through its event surface (src/codemode/events.ts): a run is a `code.run` span
 * (INTERNAL) and each tool call the code makes is an `execute_tool {name}` span under it, which the
 * MCP `tools/call` inside enriches instead of opening a second span (tool-scope.ts). The code itself
 * is never recorded: it may carry what the model read from tools.
 */
import type { Tracer } from "@opentelemetry/api";
import type { CodeCallValue, CodeModeEvents, CodeRunValue, CodeSpanInfo } from "../codemode/events.js";
import { runToolExecution } from "./agent-spans.js";
import type { OtelApi } from "./otel-api.js";
import { recordOutcome } from "./outcome.js";
import { ATTR_ERROR_TYPE } from "./semconv.js";

export const CODE_RUN_SPAN = "code.run";

export function codeModeEventsFor(api: OtelApi, tracer: Tracer): CodeModeEvents {
  return {
    async around<T>(info: CodeSpanInfo, run: () => Promise<T>): Promise<T> {
      if (info.kind === "call") {
        return runToolExecution(api, tracer, { name: info.name, type: "function" }, run, (value) => (value as CodeCallValue).isError);
      }
      const span = tracer.startSpan(CODE_RUN_SPAN, { kind: api.SpanKind.INTERNAL, attributes: { "mcp_switchboard.code.chars": info.source.length } });
      try {
        const value = await api.context.with(api.trace.setSpan(api.context.active(), span), run);
        const outcome = (value as CodeRunValue).outcome;
        if (!outcome.ok) recordOutcome(api, span, { attributes: { [ATTR_ERROR_TYPE]: outcome.name }, description: outcome.message });
        return value;
      } finally {
        span.end();
      }
    },
  };
}
