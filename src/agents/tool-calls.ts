/**
 * One turn's tool calls, run at once. Each call ends in a `tool_result` block the model can read, never
 * in an exception: an unknown tool, arguments that are not a JSON object, a refusal by `approve` (or by
 * the Switchboard's own `approve` hook), a failed call and a call cut short by the run's abort all
 * become error results, so the trace stays complete and can be continued.
 */
import type { Tool } from "../client/types.js";
import { missingToolError, parseArguments } from "../adapters/tool-runner.js";
import { decodeArguments } from "../adapters/schema.js";
import { refusalOf, refusedResult, type ApprovalDecision } from "../switchboard/hooks.js";
import { isObject } from "../util/guards.js";
import { cutResult } from "../switchboard/result-budget.js";
import { ServerUnavailableError } from "../switchboard/tool-errors.js";
import { within, type AgentEvents, type ToolCallStart } from "./events.js";
import type { HostCallOutcome, HostView } from "./host.js";
import type { ToolCallRecord, ToolResultBlock, ToolUseBlock } from "./trace.js";

/** What `approve` is asked about one tool call. */
export interface AgentApprovalRequest {
  /** The MCP name the model asked for (qualified on a Switchboard). */
  name: string;
  /** The server the call goes to first, and the tool's name there (undefined when the host does not say). */
  server: string | undefined;
  tool: string | undefined;
  /** The arguments that will be sent. */
  input: Record<string, unknown>;
  /** The tool's annotations as its server lists them. */
  annotations: Tool["annotations"] | undefined;
}

export type AgentApprove = (request: AgentApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>;

export interface TurnContext {
  host: HostView;
  tools: readonly Tool[];
  turn: number;
  signal: AbortSignal;
  approve?: AgentApprove | undefined;
  events?: AgentEvents | undefined;
  /** Passed to every `callTool` (the run's signal is added). */
  callOptions?: Record<string, unknown> | undefined;
  /** The result budget of a tool, by its MCP name (switchboard/result-budget.ts). */
  maxResultChars?: ((name: string) => number | undefined) | undefined;
  /** A durable run's checkpoints (durable-run.ts). */
  gate?: CallGate | undefined;
}

/** How a durable run keeps each call's fate: asked before a call is sent, told how it ended. */
export interface CallGate {
  /** The call's outcome recorded before a crash: it is not run again. */
  recorded(toolUseId: string): { result: ToolResultBlock; record: ToolCallRecord } | undefined;
  /** Right before sending: a result that replaces the call (denied, outcome unknown), or options to add. */
  sending(use: ToolUseBlock, tool: Tool): Promise<{ result: ToolResultBlock; failure: Failure } | { callOptions: Record<string, unknown> }>;
  ended(result: ToolResultBlock, record: ToolCallRecord): Promise<void>;
}

export interface TurnResults {
  results: ToolResultBlock[];
  records: ToolCallRecord[];
}

export async function runToolUses(uses: readonly ToolUseBlock[], context: TurnContext): Promise<TurnResults> {
  const byName = new Map(context.tools.map((tool) => [tool.name, tool]));
  const ran = await Promise.all(uses.map((use) => runOne(use, byName.get(use.name), context)));
  return { results: ran.map((entry) => entry.result), records: ran.map((entry) => entry.record) };
}

export type Failure = NonNullable<ToolCallRecord["failure"]>;

interface Ended {
  result: ToolResultBlock;
  failure?: Failure;
  outcome?: HostCallOutcome;
}

async function runOne(use: ToolUseBlock, tool: Tool | undefined, context: TurnContext): Promise<{ result: ToolResultBlock; record: ToolCallRecord }> {
  const recorded = context.gate?.recorded(use.id);
  if (recorded !== undefined) return recorded;
  const { server, tool: toolName } = context.host.locate(use.name);
  const start: ToolCallStart = { turn: context.turn, toolUseId: use.id, name: use.name, server, tool: toolName, input: use.input, startedAt: Date.now() };
  const began = performance.now();
  context.events?.toolCallStart?.(start);
  const ended = await within(context.events, { kind: "tool", start }, () => execute(use, tool, server, toolName, context));
  const durationMs = performance.now() - began;
  const record: ToolCallRecord = {
    toolUseId: use.id,
    name: use.name,
    server: ended.outcome?.server,
    tool: toolName,
    attempts: ended.outcome?.attempts ?? [],
    durationMs,
    isError: ended.result.isError,
    ...(ended.failure ? { failure: ended.failure } : {}),
    ...(ended.outcome?.code ? { code: ended.outcome.code } : {}),
  };
  context.events?.toolCallEnd?.({ ...start, durationMs, record, result: ended.result });
  await context.gate?.ended(ended.result, record);
  return { result: ended.result, record };
}

async function execute(
  use: ToolUseBlock,
  tool: Tool | undefined,
  server: string | undefined,
  toolName: string | undefined,
  context: TurnContext,
): Promise<Ended> {
  const errorResult = (failure: Failure, text: string): Ended => ({
    failure,
    result: { type: "tool_result", toolUseId: use.id, content: [{ type: "text", text }], isError: true },
  });
  if (tool === undefined) {
    const offered = context.tools.map((t) => t.name);
    const missing = context.host.missing?.(use.name, offered) ?? missingToolError({}, use.name, offered);
    return errorResult(missing instanceof ServerUnavailableError ? "failed" : "unknown_tool", `Error: ${missing.message}`);
  }
  const input = argumentsOf(use);
  if (!input.ok) return errorResult("invalid_arguments", `Error: ${input.reason}`);
  const args = decodeArguments(tool.inputSchema, input.value) as Record<string, unknown>;
  if (context.approve) {
    const approve = context.approve;
    const refusal = await refusalOf(({ annotations }) => approve({ name: use.name, server, tool: toolName, input: args, annotations }), {
      server: server ?? "",
      tool: toolName ?? use.name,
      name: use.name,
      args,
      annotations: tool.annotations,
    });
    if (refusal !== undefined) {
      const refused = refusedResult(refusal);
      return { failure: "refused", result: { type: "tool_result", toolUseId: use.id, content: refused.content, isError: true } };
    }
  }
  if (context.signal.aborted) return errorResult("aborted", `Cancelled: the run was aborted before ${use.name} was called`);
  const gated = await context.gate?.sending(use, tool);
  if (gated !== undefined && "result" in gated) return gated;
  const outcome = await context.host.call(use.name, args, { ...context.callOptions, ...gated?.callOptions, signal: context.signal });
  if (outcome.result !== undefined) {
    const { content, isError, structuredContent } = cutResult(outcome.result, context.maxResultChars?.(use.name), use.name);
    return {
      outcome,
      result: {
        type: "tool_result",
        toolUseId: use.id,
        content: content ?? [],
        isError: isError === true,
        ...(isObject(structuredContent) ? { structuredContent } : {}),
      },
    };
  }
  const ended = context.signal.aborted
    ? errorResult("aborted", `Cancelled: the run was aborted before ${use.name} answered`)
    : errorResult("failed", `Error: ${outcome.error?.message ?? "the call failed"}`);
  return { ...ended, outcome };
}

function argumentsOf(use: ToolUseBlock): { ok: true; value: Record<string, unknown> } | { ok: false; reason: string } {
  let input = use.input;
  if (typeof input === "string") {
    const parsed = parseArguments(input);
    if (!parsed.ok) return { ok: false, reason: `the arguments for ${use.name} are not valid JSON (${parsed.reason})` };
    input = parsed.value;
  }
  if (input === undefined) return { ok: true, value: {} };
  if (!isObject(input)) {
    return {
      ok: false,
      reason: `Arguments for ${use.name} must be a JSON object, got ${input === null ? "null" : Array.isArray(input) ? "an array" : typeof input}`,
    };
  }
  return { ok: true, value: input };
}
