/**
 * `resumeAgent`: continues a durable run from its checkpoint, in this process or any other. It takes
 * the run's lease first (a second resumer gets a `CheckpointError` with reason `"leased"`), checks the
 * checkpoint and the decisions, and hands the run to `runAgent`'s loop, which replays the turn under
 * way (see durable-run.ts). A run that ended returns its result without calling anything.
 */
import { ConfigError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";
import { CheckpointError } from "./checkpointer.js";
import { checkCheckpointer, checkLeaseMs, leaseOwner, resumes } from "./durable-run.js";
import { checkRunState, isRunId, stepsOf, type ApprovalVerdict } from "./run-state.js";
import { runAgent, type RunAgentOptions } from "./run-agent.js";
import { messageText, type AgentResult } from "./trace.js";

export interface ResumeAgentOptions extends Omit<RunAgentOptions, "messages" | "runId" | "checkpointer"> {
  runId: string;
  checkpointer: NonNullable<RunAgentOptions["checkpointer"]>;
  /** Answers to the run's `pendingApprovals`, by `toolUseId`. A denial reaches the model as an error result with the reason. */
  decisions?: Record<string, ApprovalVerdict> | undefined;
}

export async function resumeAgent(options: ResumeAgentOptions): Promise<AgentResult> {
  if (!isObject(options)) throw new ConfigError("resumeAgent needs an options object: { runId, model, host, checkpointer }");
  const { runId } = options;
  if (!isRunId(runId)) throw new ConfigError(`expected the id of a run, found ${JSON.stringify(runId)}`, { field: "runId" });
  const checkpointer = checkCheckpointer(options.checkpointer);
  const leaseMs = checkLeaseMs(options.leaseMs);
  const decisions = checkDecisions(options.decisions);
  const loaded = await checkpointer.load(runId);
  if (loaded === undefined) throw new CheckpointError(`No checkpoint for run ${runId}`, { runId, reason: "not_found" });
  const state = checkRunState(loaded.state, runId, `The checkpoint of run ${runId}`);
  const pending = new Set((state.status === "approval" ? state.open?.approvals : undefined)?.map((entry) => entry.toolUseId));
  for (const toolUseId of Object.keys(decisions)) {
    if (!pending.has(toolUseId)) {
      throw new CheckpointError(
        `Run ${runId} has no call ${toolUseId} waiting for a decision${pending.size > 0 ? ` (waiting: ${[...pending].join(", ")})` : ""}`,
        {
          runId,
          reason: "not_pending",
          toolUseId,
        },
      );
    }
  }
  if (state.status === "end") {
    const lastAssistant = [...state.messages].reverse().find((message) => message.role === "assistant");
    const turns = state.steps.length;
    return {
      text: messageText(lastAssistant),
      messages: state.messages,
      usage: state.usage,
      turns,
      steps: stepsOf(state),
      stopReason: "end",
      partial: false,
      runId,
    };
  }
  const owner = leaseOwner();
  if (!(await checkpointer.lease(runId, owner, leaseMs))) {
    throw new CheckpointError(`Run ${runId} is held by another process (its lease has not expired)`, { runId, reason: "leased" });
  }
  try {
    // Loaded again under the lease: the holder before may have saved after the first read.
    const stored = await checkpointer.load(runId);
    if (stored === undefined) throw new CheckpointError(`No checkpoint for run ${runId}`, { runId, reason: "not_found" });
    const run: RunAgentOptions = { ...options, messages: [] };
    resumes.set(run, { stored: { state: checkRunState(stored.state, runId, `The checkpoint of run ${runId}`), revision: stored.revision }, owner, decisions });
    return await runAgent(run);
  } finally {
    await checkpointer.release(runId, owner).catch(() => undefined);
  }
}

function checkDecisions(value: unknown): Record<string, ApprovalVerdict> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new ConfigError("expected { [toolUseId]: { approve: boolean, reason? } }", { field: "decisions" });
  for (const [toolUseId, verdict] of Object.entries(value)) {
    if (!isObject(verdict) || typeof verdict.approve !== "boolean" || (verdict.reason !== undefined && typeof verdict.reason !== "string")) {
      throw new ConfigError(`the decision for ${toolUseId} must be { approve: boolean, reason?: string }`, { field: `decisions.${toolUseId}` });
    }
  }
  return value as Record<string, ApprovalVerdict>;
}
