/**
 * The run's instrumentation surface: a start and an end per model call and per tool execution, with
 * timing, and `around`, which runs each of them inside whatever the caller wraps it in (a tracing
 * span's context, say). The loop calls these and nothing else; a telemetry layer attaches here.
 */
import type { Tool } from "../client/types.js";
import type { ModelResponse } from "./model.js";
import type { ToolCallRecord, ToolResultBlock, TraceMessage } from "./trace.js";

export interface ModelCallStart {
  turn: number;
  messages: readonly TraceMessage[];
  tools: readonly Tool[];
  /** `Date.now()` at the start. */
  startedAt: number;
}

export interface ModelCallEnd extends ModelCallStart {
  durationMs: number;
  /** The model's answer; absent when the call failed or was aborted. */
  response?: ModelResponse;
  error?: Error;
}

export interface ToolCallStart {
  turn: number;
  toolUseId: string;
  /** The MCP name the model asked for. */
  name: string;
  /** The primary server and its tool name, when the host says (a Switchboard, an McpClient). */
  server: string | undefined;
  tool: string | undefined;
  input: unknown;
  startedAt: number;
}

export interface ToolCallEnd extends ToolCallStart {
  durationMs: number;
  /** Server that answered, attempts, whether it failed and why. */
  record: ToolCallRecord;
  result: ToolResultBlock;
}

export type SpanInfo = { kind: "model"; start: ModelCallStart } | { kind: "tool"; start: ToolCallStart };

export interface AgentEvents {
  modelCallStart?(event: ModelCallStart): void;
  modelCallEnd?(event: ModelCallEnd): void;
  toolCallStart?(event: ToolCallStart): void;
  toolCallEnd?(event: ToolCallEnd): void;
  /**
   * Runs each model call and each tool execution: must call `run` once and return (or await) its
   * promise. The start event has been given before `around` is called; the end event follows it.
   */
  around?<T>(span: SpanInfo, run: () => Promise<T>): Promise<T>;
}

/** Runs `run` through the `around` hook when one is set. */
export function within<T>(events: AgentEvents | undefined, span: SpanInfo, run: () => Promise<T>): Promise<T> {
  return events?.around ? events.around(span, run) : run();
}
