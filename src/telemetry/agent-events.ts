/**
 * The agent loop's spans, through its event surface (src/agents/events.ts): `runAgent({ events })`
 * runs each model call inside an inference span and each tool execution inside an `execute_tool` span
 * (agent-spans.ts), so the MCP `tools/call` a tool execution makes enriches that span instead of
 * opening a second one.
 */
import type { AgentEvents, SpanInfo, ToolSpanValue } from "../agents/events.js";
import type { ModelResponse } from "../agents/model.js";
import type { ModelCallInfo, ModelCallRecorder, ToolExecutionInfo } from "./agent-spans.js";

/** What the adapter needs of `OtelTelemetry` (kept narrow so a test can pass a stand-in). */
export interface AgentSpanRunner {
  modelCall<T>(call: ModelCallInfo, fn: (recorder: ModelCallRecorder) => Promise<T>): Promise<T>;
  toolExecution<T>(tool: ToolExecutionInfo, fn: () => Promise<T>, isError: (value: T) => boolean): Promise<T>;
}

export function agentEventsFor(spans: AgentSpanRunner, model: ModelCallInfo): AgentEvents {
  return {
    around<T>(span: SpanInfo, run: () => Promise<T>): Promise<T> {
      if (span.kind === "model") {
        return spans.modelCall(model, async (recorder) => {
          const answer = await run();
          recorder.response(responseInfo(answer as ModelResponse));
          return answer;
        });
      }
      const { name, toolUseId } = span.start;
      return spans.toolExecution({ name, callId: toolUseId, type: "function" }, run, (value) => (value as ToolSpanValue).result.isError);
    },
  };
}

function responseInfo(response: ModelResponse): Parameters<ModelCallRecorder["response"]>[0] {
  const usage = response.usage;
  return {
    ...(usage?.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
    ...(usage?.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
    ...(response.stopReason !== undefined ? { finishReasons: [response.stopReason] } : {}),
  };
}
