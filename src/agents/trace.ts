/**
 * The provider-neutral trace of an agent run: messages with roles and content blocks, token usage as
 * each provider reported it, and per tool call the server that answered, the servers tried before it,
 * and how long it took. Tool names in the trace are the MCP names the host lists (`math__add` on a
 * Switchboard), never a provider's rewritten names, so one trace can be replayed to any provider.
 */
import type { CallToolResult } from "../client/types.js";
import type { CodeRunResult } from "../codemode/code-mode.js";
import type { ToolLoadingStep } from "./deferred-tools.js";
import type { PendingApproval } from "./run-state.js";

/** MCP content blocks, as a tool result carries them (text, image, audio, resource, resource_link). */
export type McpContent = CallToolResult["content"];

export interface TextBlock {
  type: "text";
  text: string;
}

export interface ToolUseBlock {
  type: "tool_use";
  /** The provider's call id (`call_...`, `toolu_...`); tool results refer to it. */
  id: string;
  /** The MCP tool name as the host lists it (qualified on a Switchboard). */
  name: string;
  /**
   * The arguments as the model gave them: an object, or the raw text when the model's arguments were
   * not valid JSON (the run answers such a call with an error result).
   */
  input: unknown;
}

export interface ToolResultBlock {
  type: "tool_result";
  toolUseId: string;
  /** The MCP content blocks of the result (an error result carries its message as text). */
  content: McpContent;
  isError: boolean;
  /** The result's `structuredContent`, when it had one. */
  structuredContent?: Record<string, unknown>;
}

export interface ThinkingBlock {
  type: "thinking";
  /** The model's reasoning as the provider showed it (Anthropic thinking, an OpenAI reasoning summary). */
  text: string;
  /**
   * What the provider needs to accept the block back: Anthropic's `signature` (for a redacted block, its
   * `data`), OpenAI Responses' `encrypted_content`. Absent when the provider gave none.
   */
  signature?: string;
  /** Anthropic `redacted_thinking`: `signature` holds its data and `text` is empty. */
  redacted?: boolean;
  /** OpenAI Responses: the reasoning item's id (a reasoning item is sent back only with it). */
  id?: string;
}

export type Block = TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock;

export type Role = "system" | "user" | "assistant" | "tool";

export interface TraceMessage {
  role: Role;
  content: Block[];
}

/**
 * Token counts as the provider reported them, under common names; a count the provider did not report
 * is absent (never a guessed 0). Each provider counts its own way: Anthropic's `inputTokens` leaves out
 * cached tokens (they are `cacheReadTokens` / `cacheWriteTokens`) and reports no total; OpenAI's
 * `inputTokens` includes the cached ones (`cacheReadTokens` says how many) and `outputTokens` includes
 * `reasoningTokens`.
 */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

const USAGE_KEYS = ["inputTokens", "outputTokens", "totalTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const;

/** The sum of two usages: a count is present when either reported it. */
export function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (b === undefined) return a;
  const sum: Usage = { ...a };
  for (const key of USAGE_KEYS) {
    if (typeof b[key] === "number") sum[key] = (sum[key] ?? 0) + b[key];
  }
  return sum;
}

/** A usage object with only finite numbers kept: what a provider response yields after mapping. */
export function usageOf(counts: Record<keyof Usage, unknown>): Usage | undefined {
  const usage: Usage = {};
  let any = false;
  for (const key of USAGE_KEYS) {
    const value = counts[key];
    if (typeof value === "number" && Number.isFinite(value)) {
      usage[key] = value;
      any = true;
    }
  }
  return any ? usage : undefined;
}

/** One server a tool call was sent to or skipped, in order; the last one without `reason` answered. */
export interface ToolCallAttempt {
  server: string;
  /** Why the call moved on from this server (`server restarting`, `connection lost`, ...). */
  reason?: string;
  /** The failure that moved it on. */
  error?: string;
}

/** What happened to one tool call of a turn, beside its `tool_result` block. */
export interface ToolCallRecord {
  toolUseId: string;
  /** The MCP name the model asked for. */
  name: string;
  /** The server that answered (or failed last); undefined when the call never reached one. */
  server: string | undefined;
  /** The tool's name on that server. */
  tool: string | undefined;
  /** Every server tried, in order: more than one means fallbacks were used. */
  attempts: ToolCallAttempt[];
  /** From the call's start (including approval) to its result, in ms. */
  durationMs: number;
  isError: boolean;
  /** Why the call ended without the tool's answer: unknown tool, bad arguments, refusal, failure, abort, or an outcome a crash left unknown. */
  failure?: "unknown_tool" | "invalid_arguments" | "refused" | "failed" | "aborted" | "unknown_outcome";
  /** For code mode's `run_code`: the code the model wrote, the tool calls it made, what it returned and printed. */
  code?: CodeRunRecord;
}

/** One `run_code` execution in the trace. */
export interface CodeRunRecord extends CodeRunResult {
  /** The code as the model wrote it. */
  source: string;
}

/** One turn: a model call and the tool calls it asked for. */
export interface AgentStep {
  /** 1 for the first model call. */
  turn: number;
  /** The assistant message the model returned. */
  message: TraceMessage;
  /** The tool message with this turn's results (undefined when the model asked for no tool). */
  toolResults: TraceMessage | undefined;
  toolCalls: ToolCallRecord[];
  usage: Usage | undefined;
  /** The provider's own reason the model stopped (`tool_calls`, `end_turn`, `length`, ...). */
  modelStopReason: string | undefined;
  /** The model call's duration in ms. */
  modelDurationMs: number;
  /** With `toolLoading: "deferred"`: what was offered, searched and loaded in this turn. */
  toolLoading?: ToolLoadingStep;
}

/** `"approval"`: a durable run stopped for calls that wait for a person (`pendingApprovals`). */
export type StopReason = "end" | "max_turns" | "aborted" | "approval";

export interface AgentResult {
  /** The text of the last assistant message ("" when it had none). */
  text: string;
  /** The whole trace: the messages given, then each turn's assistant and tool messages. */
  messages: TraceMessage[];
  /** Summed over every model call. */
  usage: Usage;
  /** How many model calls returned (each is one turn). */
  turns: number;
  /** Per turn: its usage, tool calls (server, attempts, duration) and timing. */
  steps: AgentStep[];
  stopReason: StopReason;
  /** True unless the model ended the run itself (`stopReason: "end"`). */
  partial: boolean;
  /** A durable run's id (given, or made up when a checkpointer was given without one). */
  runId?: string;
  /** With `stopReason: "approval"`: the calls that wait for a decision. */
  pendingApprovals?: PendingApproval[];
}

/** The text blocks of a message, joined. */
export function messageText(message: TraceMessage | undefined): string {
  if (message === undefined) return "";
  return message.content
    .filter((block): block is TextBlock => block.type === "text")
    .map((block) => block.text)
    .join("");
}
