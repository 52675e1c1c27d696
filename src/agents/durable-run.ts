/**
 * A durable run's side of `runAgent`: it checkpoints the run (before each turn's tool calls are sent,
 * after each call ends, and when the run stops), holds the run's lease, stops a turn whose calls need a
 * person, and, for a resumed run, replays the turn under way: recorded results stand, a call sent
 * with no recorded answer is sent again only when that is safe, decisions apply. Saves are coalesced:
 * a save asked for while one is being written is folded into the next write, so a turn's parallel
 * calls cost one write before they go out and about one more as they end.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Tool } from "../client/types.js";
import { isIdempotentTool } from "../connection/idempotence.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";
import { CheckpointError, type Checkpointer, type StoredRun } from "./checkpointer.js";
import type { HostView } from "./host.js";
import type { ModelResponse, AgentModel } from "./model.js";
import {
  IDEMPOTENCY_KEY_META,
  RUN_STATE_KIND,
  RUN_STATE_VERSION,
  isRunId,
  stepRecord,
  stepsOf,
  type ApprovalVerdict,
  type OpenTurn,
  type RunState,
  type StepRecord,
  type ToolLoadingState,
} from "./run-state.js";
import type { AgentApprovalRequest, CallGate, Failure } from "./tool-calls.js";
import type { AgentResult, AgentStep, ToolResultBlock, ToolUseBlock, TraceMessage, Usage } from "./trace.js";

/** `runAgent`'s options for durable runs (see docs/guide/durable-runs.md). */
export interface DurableRunOptions {
  /** Names the run in the checkpointer (default: a random UUID). Letters, digits, `.`, `_`, `-`, `:`. */
  runId?: string | undefined;
  /** Saves the run after every step and before tool calls are sent, so `resumeAgent` can continue it. */
  checkpointer?: Checkpointer | undefined;
  /**
   * Calls that need a person: tool names, or a function of the call (with the tool's annotations).
   * A turn with such a call stops the run with `stopReason: "approval"`; `resumeAgent` with
   * `decisions` continues it.
   */
  requireApproval?: readonly string[] | ((request: AgentApprovalRequest) => boolean | Promise<boolean>) | undefined;
  /** How long the run's lease lasts without renewal (default 30000 ms; renewed every third of it). */
  leaseMs?: number | undefined;
}

export const DEFAULT_LEASE_MS = 30_000;

/** What `resumeAgent` hands to `runAgent`: the loaded checkpoint, the lease it took, the decisions. */
export interface ResumeHandle {
  stored: StoredRun;
  owner: string;
  decisions: Record<string, ApprovalVerdict>;
}

/** Keyed by the options object `resumeAgent` builds, so resuming needs no public option. */
export const resumes = new WeakMap<object, ResumeHandle>();

export function leaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export function checkLeaseMs(value: number | undefined): number {
  const leaseMs = value ?? DEFAULT_LEASE_MS;
  if (!(Number.isInteger(leaseMs) && leaseMs >= 100))
    throw new ConfigError(`expected a whole number of ms >= 100, found ${String(value)}`, { field: "leaseMs" });
  return leaseMs;
}

export function checkCheckpointer(value: unknown): Checkpointer {
  const methods = ["load", "save", "lease", "release", "list", "delete"];
  if (!isObject(value) || methods.some((name) => typeof value[name] !== "function")) {
    throw new ConfigError(`expected a Checkpointer (${methods.join(", ")}), e.g. memoryCheckpointer() or fileCheckpointer(dir)`, { field: "checkpointer" });
  }
  return value as unknown as Checkpointer;
}

/** The durable side of a run, or undefined when the options ask for none. */
export function openRun(options: DurableRunOptions & { callOptions?: Record<string, unknown> | undefined }): DurableRun | undefined {
  const resumed = resumes.get(options);
  if (options.checkpointer === undefined) {
    for (const field of ["requireApproval", "runId"] as const) {
      if (options[field] !== undefined) throw new ConfigError(`${field} needs a checkpointer to keep the run in`, { field: "checkpointer" });
    }
    return undefined;
  }
  const checkpointer = checkCheckpointer(options.checkpointer);
  const leaseMs = checkLeaseMs(options.leaseMs);
  const { requireApproval } = options;
  if (
    requireApproval !== undefined &&
    typeof requireApproval !== "function" &&
    !(Array.isArray(requireApproval) && requireApproval.every((n) => typeof n === "string"))
  ) {
    throw new ConfigError("expected tool names (string[]) or a function of the call", { field: "requireApproval" });
  }
  if (resumed !== undefined)
    return new DurableRun(checkpointer, resumed.stored.state, resumed.stored.revision, resumed.owner, leaseMs, options, resumed.decisions);
  const runId = options.runId ?? randomUUID();
  if (!isRunId(runId))
    throw new ConfigError(`expected 1-200 letters, digits, ".", "_", "-" or ":" (not starting with "."), found ${JSON.stringify(runId)}`, { field: "runId" });
  const now = Date.now();
  const state: RunState = {
    kind: RUN_STATE_KIND,
    version: RUN_STATE_VERSION,
    runId,
    status: "running",
    messages: [],
    usage: {},
    steps: [],
    createdAt: now,
    updatedAt: now,
  };
  return new DurableRun(checkpointer, state, 0, leaseOwner(), leaseMs, options, {});
}

export class DurableRun {
  readonly runId: string;
  /** The finished turns, as last checkpointed (a resumed run starts from them). */
  private done: { messages: TraceMessage[]; usage: Usage; steps: AgentStep[]; records: StepRecord[] };
  private open: OpenTurn | undefined;
  private status: RunState["status"];
  private replay: OpenTurn | undefined;
  private current: Promise<void> = Promise.resolve();
  private next: Promise<void> | undefined;
  /** Whether the next write must reach the disk before it resolves (a save asked for it). */
  private nextSync = false;
  private renewal: NodeJS.Timeout | undefined;
  private lost = false;
  /** A deferred-loading run's tools, read at each save. */
  private loading: (() => ToolLoadingState) | undefined;

  constructor(
    private readonly checkpointer: Checkpointer,
    private readonly initial: RunState,
    private revision: number,
    private readonly owner: string,
    private readonly leaseMs: number,
    private readonly options: DurableRunOptions & { callOptions?: Record<string, unknown> | undefined },
    decisions: Record<string, ApprovalVerdict>,
  ) {
    this.runId = initial.runId;
    this.resumed = revision > 0;
    this.done = { messages: initial.messages, usage: initial.usage, steps: stepsOf(initial), records: initial.steps };
    this.open = initial.open;
    this.replay = initial.open;
    this.status = initial.status;
    if (this.open !== undefined) this.open.decisions = { ...this.open.decisions, ...decisions };
  }

  /** Continues a checkpoint (else a fresh run, whose first save is in `begin`). */
  readonly resumed: boolean;

  /** The trace to continue: the finished turns of a resumed run. */
  get messages(): TraceMessage[] {
    return [...this.done.messages];
  }
  get steps(): AgentStep[] {
    return [...this.done.steps];
  }
  get usage(): Usage {
    return this.done.usage;
  }

  /** Takes the lease (a fresh run) and writes the first checkpoint; renews the lease from now on. */
  async begin(messages: TraceMessage[]): Promise<void> {
    if (!this.resumed) {
      if (!(await this.checkpointer.lease(this.runId, this.owner, this.leaseMs))) {
        throw new CheckpointError(`Run ${this.runId} is held by another process (its lease has not expired)`, { runId: this.runId, reason: "leased" });
      }
      if ((await this.checkpointer.load(this.runId)) !== undefined) {
        await this.checkpointer.release(this.runId, this.owner);
        throw new CheckpointError(`Run ${this.runId} exists already: resume it with resumeAgent, or choose another runId`, {
          runId: this.runId,
          reason: "exists",
        });
      }
      this.done = { ...this.done, messages: [...messages] };
    }
    this.status = "running";
    const every = Math.max(50, Math.floor(this.leaseMs / 3));
    this.renewal = setInterval(() => {
      this.checkpointer.lease(this.runId, this.owner, this.leaseMs).then(
        (held) => {
          if (!held) this.lost = true;
        },
        () => undefined,
      );
    }, every);
    this.renewal.unref();
    // The file checkpointer flushes a run's first write anyway; the first call sent flushes the rest.
    await this.save(false);
  }

  /** The tools a resumed run had loaded, and where this run's are read from for each save. */
  get toolLoading(): ToolLoadingState | undefined {
    return this.initial.toolLoading;
  }
  track(tools: { state(): ToolLoadingState } | undefined): void {
    this.loading = tools === undefined ? undefined : () => tools.state();
  }

  /** The model, except that a resumed turn's recorded answer is replayed once instead of asked again. */
  model(model: AgentModel): AgentModel {
    return (request) => {
      const replay = this.replay;
      this.replay = undefined;
      if (replay !== undefined && replay.turn === request.turn) return Promise.resolve(replay.response);
      return model(request);
    };
  }

  /**
   * The model asked for `uses` in `turn`: records the turn (saved with the first call sent) and says
   * whether it must stop for calls that wait for a person (then it is saved at once).
   */
  async opened(
    turn: number,
    response: ModelResponse,
    modelDurationMs: number,
    uses: readonly ToolUseBlock[],
    tools: readonly Tool[],
    host: Pick<HostView, "locate">,
  ): Promise<boolean> {
    if (this.open?.turn !== turn) {
      const approvals = [];
      const require = this.options.requireApproval;
      if (require !== undefined) {
        const byName = new Map(tools.map((tool) => [tool.name, tool]));
        for (const use of uses) {
          const tool = byName.get(use.name);
          if (tool === undefined) continue;
          const input = isObject(use.input) ? use.input : {};
          const needed =
            typeof require === "function"
              ? await require({ name: use.name, ...host.locate(use.name), input, annotations: tool.annotations })
              : require.includes(use.name);
          if (needed) approvals.push({ toolUseId: use.id, name: use.name, input: use.input });
        }
      }
      const { message, usage, stopReason } = response;
      this.open = { turn, response: { message, usage, stopReason }, modelDurationMs, sent: [], finished: [], approvals, decisions: {} };
    }
    if (this.waiting().length === 0) return false;
    return true;
  }

  /** The calls of the turn under way that still wait for a decision. */
  private waiting() {
    const open = this.open;
    if (open === undefined) return [];
    return open.approvals.filter(
      (entry) => open.decisions[entry.toolUseId] === undefined && !open.finished.some((f) => f.result.toolUseId === entry.toolUseId),
    );
  }

  readonly gate: CallGate = {
    recorded: (toolUseId) => this.open?.finished.find((entry) => entry.result.toolUseId === toolUseId),
    sending: async (use, tool) => {
      const open = this.open as OpenTurn;
      const callOptions = this.options.callOptions;
      const decision = open.decisions[use.id];
      if (decision !== undefined && !decision.approve) {
        return denied(use, `Call denied: ${decision.reason ?? `${use.name} was not approved`}`, "refused");
      }
      const key = `${this.runId}:${use.id}`;
      const prior = open.sent.find((call) => call.toolUseId === use.id);
      if (prior !== undefined && !prior.idempotent) {
        return denied(
          use,
          `Error: the outcome of this ${use.name} call is unknown: it was sent (idempotency key ${key}) but the run stopped before its answer was recorded, so it may or may not have run. It was not sent again because the tool is not idempotent; check its effect before calling it again.`,
          "unknown_outcome",
        );
      }
      if (prior === undefined) {
        const idempotent = isIdempotentTool(tool, typeof callOptions?.idempotent === "boolean" ? callOptions.idempotent : undefined);
        open.sent.push({ toolUseId: use.id, idempotencyKey: key, idempotent });
        await this.save();
      }
      const meta = isObject(callOptions?.meta) ? callOptions.meta : undefined;
      return { callOptions: { meta: { ...meta, [IDEMPOTENCY_KEY_META]: key } } };
    },
    ended: async (result, record) => {
      const open = this.open as OpenTurn;
      open.finished.push({ result, record });
      // Not flushed: a result lost in a power cut makes its call "sent, outcome unknown", which a
      // resume handles safely; the next call sent (or the run's end) flushes it with its own record.
      await this.save(false);
    },
  };

  /** The turn ended (its results are checkpointed already): it joins the finished turns. */
  stepped(messages: readonly TraceMessage[], usage: Usage, steps: readonly AgentStep[]): void {
    const step = steps[steps.length - 1];
    const records = step === undefined ? this.done.records : [...this.done.records, stepRecord(step, messages)];
    this.done = { messages: [...messages], usage, steps: [...steps], records };
    this.open = undefined;
  }

  /** The run stops: saves how, and adds the run's id (and the calls waiting for a person) to the result. */
  async finish(result: AgentResult): Promise<AgentResult> {
    this.status = result.stopReason;
    await this.save();
    const pending = result.stopReason === "approval" ? { pendingApprovals: this.waiting() } : {};
    return { ...result, runId: this.runId, ...pending };
  }

  /** Stops renewing, waits for the last write, gives the lease up. */
  async close(): Promise<void> {
    clearInterval(this.renewal);
    await this.current.catch(() => undefined);
    await this.checkpointer.release(this.runId, this.owner).catch(() => undefined);
  }

  private save(sync = true): Promise<void> {
    this.nextSync ||= sync;
    if (this.next !== undefined) return this.next;
    const next = this.current
      .catch(() => undefined)
      .then(() => {
        // From here on, a change needs another write: this one's snapshot is taken now.
        this.next = undefined;
        const flush = this.nextSync;
        this.nextSync = false;
        return this.write(flush);
      });
    this.next = next;
    this.current = next;
    return next;
  }

  private async write(sync: boolean): Promise<void> {
    if (this.lost)
      throw new CheckpointError(`Run ${this.runId}: this process lost the run's lease; another may be driving it`, { runId: this.runId, reason: "leased" });
    const open = this.open;
    const state: RunState = {
      ...this.initial,
      status: this.status,
      messages: this.done.messages,
      usage: this.done.usage,
      steps: this.done.records,
      open: open === undefined ? undefined : { ...open, sent: [...open.sent], finished: [...open.finished], decisions: { ...open.decisions } },
      toolLoading: this.loading?.(),
      updatedAt: Date.now(),
    };
    if (open === undefined) delete state.open;
    if (state.toolLoading === undefined) delete state.toolLoading;
    this.revision = await this.checkpointer.save(this.runId, state, this.revision, sync ? undefined : { sync: false });
  }
}

function denied(use: ToolUseBlock, text: string, failure: Failure): { result: ToolResultBlock; failure: Failure } {
  return { failure, result: { type: "tool_result", toolUseId: use.id, content: [{ type: "text", text }], isError: true } };
}
