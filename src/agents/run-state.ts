/**
 * What a checkpoint holds: the finished turns (messages, usage, steps) and, while a turn is under way,
 * that turn's model answer and what became of each of its tool calls: a result recorded, sent with no
 * result yet (it may have run), or waiting for a person. Plain JSON, so any store can keep it; checked
 * field by field when loaded, because a checkpoint comes from outside the process.
 */
import { SEARCH_TOOL_NAME } from "../adapters/deferred.js";
import { isObject } from "../util/guards.js";
import { checkTrace } from "./convert/shared.js";
import { CheckpointError } from "./checkpointer.js";
import type { AgentStep, StopReason, ToolCallRecord, ToolResultBlock, TraceMessage, Usage } from "./trace.js";

/** Marks a run state, so a foreign record is told apart from a corrupted one. */
export const RUN_STATE_KIND = "mcp-switchboard/agent-run";
/**
 * The state format this version writes; a checkpoint with a higher one is refused, not guessed at.
 * 2 added `toolLoading`; a version 1 state is read with it rebuilt from its steps.
 */
export const RUN_STATE_VERSION = 2;
/** The `params._meta` key of every tool call a durable run sends. */
export const IDEMPOTENCY_KEY_META = "mcp-switchboard/idempotency-key";

/** `"running"` while a process drives it (or died driving it); otherwise how it stopped. */
export type RunStatus = "running" | StopReason;

/** A call checkpointed before it was sent: with no result recorded, it may or may not have run. */
export interface SentCall {
  toolUseId: string;
  /** `"<runId>:<toolUseId>"`, sent in `params._meta`. */
  idempotencyKey: string;
  /** Sending it again is safe (the tool's annotations, or `callOptions.idempotent`). */
  idempotent: boolean;
}

/** A tool call that waits for a person's decision. */
export interface PendingApproval {
  toolUseId: string;
  name: string;
  input: unknown;
}

/** A person's answer to a pending approval. */
export interface ApprovalVerdict {
  approve: boolean;
  /** For a denial: what the model reads. */
  reason?: string | undefined;
}

export interface OpenTurn {
  turn: number;
  /** The model's answer, replayed on resume instead of asking the model again. */
  response: { message: TraceMessage; usage?: Usage | undefined; stopReason?: string | undefined };
  modelDurationMs: number;
  sent: SentCall[];
  finished: Array<{ result: ToolResultBlock; record: ToolCallRecord }>;
  approvals: PendingApproval[];
  decisions: Record<string, ApprovalVerdict>;
}

/**
 * A finished turn as stored: its step without the two messages, which the trace holds already (the
 * assistant message at `at`, and its tool message right after it when the turn called tools), so a
 * checkpoint carries each message once.
 */
export interface StepRecord extends Omit<AgentStep, "message" | "toolResults"> {
  at: number;
}

/** A deferred-loading run's tools (`toolLoading: "deferred"`): a resumed run offers them again without searching. */
export interface ToolLoadingState {
  pinned: string[];
  /** Found or called so far, in the order they were loaded. */
  loaded: string[];
}

export interface RunState {
  kind: typeof RUN_STATE_KIND;
  version: number;
  runId: string;
  status: RunStatus;
  /** The trace up to the last finished turn. */
  messages: TraceMessage[];
  usage: Usage;
  steps: StepRecord[];
  /** The turn under way, if any. */
  open?: OpenTurn | undefined;
  /** With `toolLoading: "deferred"`: the tools pinned and loaded so far. */
  toolLoading?: ToolLoadingState | undefined;
  createdAt: number;
  updatedAt: number;
}

const STATUSES: ReadonlySet<string> = new Set(["running", "end", "max_turns", "aborted", "approval"]);

/** `value` as a run state of `runId`, or a `CheckpointError` saying what is wrong with it. */
export function checkRunState(value: unknown, runId: string, where: string): RunState {
  const fail = (reason: "corrupt" | "foreign" | "newer_version", message: string, cause?: unknown) =>
    new CheckpointError(`${where}: ${message}`, { runId, reason, cause });
  if (!isObject(value) || value.kind !== RUN_STATE_KIND) throw fail("foreign", "not an mcp-switchboard run checkpoint");
  if (typeof value.version !== "number" || !Number.isInteger(value.version) || value.version < 1) throw fail("corrupt", "its version is missing");
  if (value.version > RUN_STATE_VERSION) {
    throw fail("newer_version", `written by a newer version of mcp-switchboard (format ${value.version}; this one reads up to ${RUN_STATE_VERSION})`);
  }
  if (value.runId !== runId) throw fail("foreign", `it belongs to run ${JSON.stringify(value.runId)}, not ${JSON.stringify(runId)}`);
  if (typeof value.status !== "string" || !STATUSES.has(value.status)) throw fail("corrupt", `unknown status ${JSON.stringify(value.status)}`);
  if (!Array.isArray(value.messages) || !Array.isArray(value.steps) || !isObject(value.usage)) throw fail("corrupt", "messages, steps or usage missing");
  try {
    checkTrace(value.messages as TraceMessage[], "checkpoint messages");
  } catch (error) {
    throw fail("corrupt", (error as Error).message, error);
  }
  const messages = value.messages as TraceMessage[];
  const stepAt = (step: unknown) =>
    isObject(step) &&
    typeof step.at === "number" &&
    messages[step.at]?.role === "assistant" &&
    Array.isArray(step.toolCalls) &&
    (step.toolCalls.length === 0 || messages[step.at + 1]?.role === "tool");
  if (!value.steps.every(stepAt)) throw fail("corrupt", "a step does not point at its messages");
  if (value.open !== undefined && !isOpenTurn(value.open)) throw fail("corrupt", "the turn under way is malformed");
  const names = (list: unknown) => Array.isArray(list) && list.every((name) => typeof name === "string");
  if (value.toolLoading !== undefined && !(isObject(value.toolLoading) && names(value.toolLoading.pinned) && names(value.toolLoading.loaded))) {
    throw fail("corrupt", "toolLoading is malformed");
  }
  return value.version === 1 ? fromVersion1(value as unknown as RunState) : (value as unknown as RunState);
}

/** A version 1 state as version 2: a deferred-loading run's tools, from what its steps offered and loaded. */
function fromVersion1(state: RunState): RunState {
  const strings = (list: unknown) => (Array.isArray(list) ? list.filter((name): name is string => typeof name === "string") : []);
  const loading = state.steps.flatMap((step) => (isObject(step.toolLoading) ? [step.toolLoading] : []));
  if (loading.length === 0) return { ...state, version: RUN_STATE_VERSION };
  const loaded = new Set(loading.flatMap((step) => [...strings(step.offered), ...strings(step.loaded)]));
  loaded.delete(SEARCH_TOOL_NAME);
  return { ...state, version: RUN_STATE_VERSION, toolLoading: { pinned: [], loaded: [...loaded] } };
}

function isOpenTurn(value: unknown): value is OpenTurn {
  if (!isObject(value) || typeof value.turn !== "number" || !isObject(value.response) || !isObject(value.response.message)) return false;
  if (!Array.isArray(value.sent) || !Array.isArray(value.finished) || !Array.isArray(value.approvals) || !isObject(value.decisions)) return false;
  try {
    checkTrace([value.response.message as unknown as TraceMessage], "checkpoint open turn");
  } catch {
    return false;
  }
  return (
    value.sent.every((call) => isObject(call) && typeof call.toolUseId === "string" && typeof call.idempotencyKey === "string") &&
    value.finished.every((entry) => isObject(entry) && isObject(entry.result) && isObject(entry.record)) &&
    value.approvals.every((entry) => isObject(entry) && typeof entry.toolUseId === "string" && typeof entry.name === "string")
  );
}

/** The steps of a stored state, with their messages from the trace again. */
export function stepsOf(state: Pick<RunState, "messages" | "steps">): AgentStep[] {
  return state.steps.map(({ at, ...step }) => ({
    ...step,
    message: state.messages[at]!,
    toolResults: step.toolCalls.length > 0 ? state.messages[at + 1] : undefined,
  }));
}

/** A step as stored: `at` is where its assistant message is in `messages`. */
export function stepRecord(step: AgentStep, messages: readonly TraceMessage[]): StepRecord {
  const { message: _message, toolResults, ...rest } = step;
  return { ...rest, at: messages.length - (toolResults === undefined ? 1 : 2) };
}

/** Run ids become file names and Redis keys: letters, digits, `.`, `_`, `-`, `:`, not starting with a dot. */
export function isRunId(value: unknown): value is string {
  return typeof value === "string" && /^[A-Za-z0-9_:-][A-Za-z0-9._:-]{0,199}$/.test(value);
}
