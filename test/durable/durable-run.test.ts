/**
 * Durable runs in one process, with the memory checkpointer, over an McpClient to the bank (the SDK's
 * McpServer over HTTP): a finished run resumes to its result without calling anything, a run stopped
 * by its turn limit or by an abort keeps its trace and resumes, approvals by a function of the call's
 * annotations, a failed checkpoint stops the run before its calls are sent, and every bad input is a
 * typed error naming the field, run or call.
 */
import { describe, expect, it } from "vitest";
import {
  CheckpointError,
  ConfigError,
  connect,
  memoryCheckpointer,
  resumeAgent,
  runAgent,
  type AgentModel,
  type Checkpointer,
  type ModelRequest,
  type ToolUseBlock,
} from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { startBank, type Bank } from "../fixtures/durable/bank.js";
import { resultText, wellFormed } from "./helpers.js";

const closing = closeAfterEach();

async function bankClient(): Promise<{ bank: Bank; client: Awaited<ReturnType<typeof connect>> }> {
  const bank = closing(await startBank());
  const client = closing(await connect({ url: bank.url }, { protocol: "legacy" }));
  return { bank, client };
}

/** Turn 1: a transfer and a read; turn 2: another transfer; turn 3: the answer. Records the turns asked. */
function payModel(): { model: AgentModel; asked: number[]; hold?: Promise<void> } {
  const asked: number[] = [];
  const use = (turn: number, i: number, name: string, input: Record<string, unknown>): ToolUseBlock => ({ type: "tool_use", id: `t${turn}_${i}`, name, input });
  const model: AgentModel = async ({ turn }: ModelRequest) => {
    asked.push(turn);
    if (turn === 1) return { message: { role: "assistant", content: [use(1, 0, "transfer", { to: "a", amount: 1 }), use(1, 1, "balance", { account: "a" })] } };
    if (turn === 2) return { message: { role: "assistant", content: [use(2, 0, "transfer", { to: "b", amount: 2 })] }, usage: { outputTokens: 2 } };
    return { message: { role: "assistant", content: [{ type: "text", text: "paid" }] }, usage: { outputTokens: 3 } };
  };
  return { model, asked };
}

const never: AgentModel = () => Promise.reject(new Error("the model must not be asked"));

describe("durable runs in one process", () => {
  it("checkpoints a run; resuming a finished run returns its result without calling anything", async () => {
    const { bank, client } = await bankClient();
    const checkpointer = memoryCheckpointer();
    const { model } = payModel();
    const result = await runAgent({ model, host: client, messages: "pay", runId: "done-1", checkpointer });
    expect(result).toMatchObject({ stopReason: "end", text: "paid", runId: "done-1", turns: 3 });
    expect(bank.transfers).toEqual(["done-1:t1_0", "done-1:t2_0"]);
    expect(bank.reads).toEqual(["done-1:t1_1"]);
    const stored = await checkpointer.load("done-1");
    expect(stored?.state.status).toBe("end");
    expect(stored?.state.open).toBeUndefined();
    // One write to start, then per tool turn one before the calls and about one after them, then the end.
    expect(stored?.revision).toBeGreaterThanOrEqual(5);
    expect(stored?.revision).toBeLessThanOrEqual(8);

    const again = await resumeAgent({ model: never, host: client, runId: "done-1", checkpointer });
    expect(again).toEqual({ ...result, messages: result.messages, steps: result.steps });
    expect(bank.transfers).toHaveLength(2);
  });

  it("a run without a runId gets one; the turn limit keeps the trace and a higher limit resumes it", async () => {
    const { bank, client } = await bankClient();
    const checkpointer = memoryCheckpointer();
    const { model, asked } = payModel();
    const first = await runAgent({ model, host: client, messages: "pay", checkpointer, maxTurns: 1 });
    expect(first.stopReason).toBe("max_turns");
    expect(first.runId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await checkpointer.load(first.runId!))?.state.status).toBe("max_turns");
    const done = await resumeAgent({ model, host: client, runId: first.runId!, checkpointer, maxTurns: 5 });
    expect(done).toMatchObject({ stopReason: "end", turns: 3, usage: { outputTokens: 5 } });
    expect(asked).toEqual([1, 2, 3]);
    expect(bank.transfers).toHaveLength(2);
    expect(wellFormed(done.messages)).toBe(true);
  });

  it("an aborted run keeps its trace and resumes", async () => {
    const { client } = await bankClient();
    const checkpointer = memoryCheckpointer();
    const { model } = payModel();
    const controller = new AbortController();
    const stopping: AgentModel = (request) => {
      if (request.turn === 2) {
        controller.abort();
        return new Promise(() => undefined);
      }
      return model(request);
    };
    const aborted = await runAgent({ model: stopping, host: client, messages: "pay", runId: "ab", checkpointer, signal: controller.signal });
    expect(aborted.stopReason).toBe("aborted");
    expect((await checkpointer.load("ab"))?.state).toMatchObject({ status: "aborted", steps: [{ turn: 1 }] });
    const done = await resumeAgent({ model, host: client, runId: "ab", checkpointer });
    expect(done.stopReason).toBe("end");
    expect(done.steps.map((s) => s.turn)).toEqual([1, 2, 3]);
  });

  it("requireApproval as a function of the call's annotations stops the run; decisions continue it", async () => {
    const { bank, client } = await bankClient();
    const checkpointer = memoryCheckpointer();
    const { model, asked } = payModel();
    const requireApproval = ({ annotations }: { annotations?: { destructiveHint?: boolean } | undefined }) => annotations?.destructiveHint === true;
    const paused = await runAgent({ model, host: client, messages: "pay", runId: "ap", checkpointer, requireApproval });
    expect(paused).toMatchObject({ stopReason: "approval", partial: true, pendingApprovals: [{ toolUseId: "t1_0", name: "transfer" }] });
    expect(bank.reads).toEqual([]);
    // No decision: it stops again, calling nothing.
    expect((await resumeAgent({ model: never, host: client, runId: "ap", checkpointer, requireApproval })).stopReason).toBe("approval");
    const next = await resumeAgent({ model, host: client, runId: "ap", checkpointer, requireApproval, decisions: { t1_0: { approve: false } } });
    expect(next.pendingApprovals?.map((p) => p.toolUseId)).toEqual(["t2_0"]);
    expect(resultText(next.messages, "t1_0")).toBe("Call denied: transfer was not approved");
    const done = await resumeAgent({ model, host: client, runId: "ap", checkpointer, requireApproval, decisions: { t2_0: { approve: true } } });
    expect(done.stopReason).toBe("end");
    expect(bank.transfers).toEqual(["ap:t2_0"]);
    expect(bank.reads).toEqual(["ap:t1_1"]);
    expect(asked).toEqual([1, 2, 3]);
  });

  it("a run whose model call fails is left resumable; resuming sends nothing twice", async () => {
    const { bank, client } = await bankClient();
    const checkpointer = memoryCheckpointer();
    const { model, asked } = payModel();
    const failing: AgentModel = (request) => (request.turn === 2 ? Promise.reject(new Error("provider down")) : model(request));
    await expect(runAgent({ model: failing, host: client, messages: "pay", runId: "mf", checkpointer })).rejects.toThrow(/provider down/);
    expect((await checkpointer.load("mf"))?.state.status).toBe("running");
    const done = await resumeAgent({ model, host: client, runId: "mf", checkpointer });
    expect(done.stopReason).toBe("end");
    expect(asked).toEqual([1, 2, 3]);
    expect(bank.transfers).toEqual(["mf:t1_0", "mf:t2_0"]);
    expect(bank.reads).toEqual(["mf:t1_1"]);
  });

  it("a checkpoint that cannot be written stops the run before its calls are sent", async () => {
    const { bank, client } = await bankClient();
    const inner = memoryCheckpointer();
    let saves = 0;
    const failing: Checkpointer = {
      ...inner,
      save: (runId, state, revision) => (++saves === 2 ? Promise.reject(new Error("disk full")) : inner.save(runId, state, revision)),
    };
    const { model } = payModel();
    await expect(runAgent({ model, host: client, messages: "pay", runId: "f", checkpointer: failing })).rejects.toThrow("disk full");
    expect(bank.transfers).toEqual([]);
    expect(bank.reads).toEqual([]);
    // The lease was given back: the run can be resumed at once.
    expect(await inner.lease("f", "someone", 1000)).toBe(true);
  });

  it("a run that loses its lease stops at its next save, before sending; user _meta entries ride along with the key", async () => {
    const { bank, client } = await bankClient();
    const inner = memoryCheckpointer();
    // Renewals are refused from turn 2 on, which waits long enough for several renewals.
    let refuse = false;
    let refused = 0;
    const losing: Checkpointer = {
      ...inner,
      lease: (runId, owner, ttl) => (refuse ? Promise.resolve(++refused > 0 && false) : inner.lease(runId, owner, ttl)),
    };
    const { model } = payModel();
    const slow: AgentModel = async (request) => {
      if (request.turn === 2) {
        refuse = true;
        while (refused === 0) await new Promise((r) => setTimeout(r, 10));
      }
      return model(request);
    };
    const lost = await runAgent({
      model: slow,
      host: client,
      messages: "pay",
      runId: "lost",
      checkpointer: losing,
      leaseMs: 100,
      callOptions: { meta: { tenant: "t1" } },
    }).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(CheckpointError);
    expect(lost).toMatchObject({ reason: "leased", runId: "lost" });
    // Turn 1 went out (with the key); turn 2's transfer did not.
    expect(bank.transfers).toEqual(["lost:t1_0"]);
    expect(bank.metas[0]).toMatchObject({ tenant: "t1", "mcp-switchboard/idempotency-key": "lost:t1_0" });
  });

  it("bad input: typed errors naming the field, the run or the call", async () => {
    const { client } = await bankClient();
    const checkpointer = memoryCheckpointer();
    const { model } = payModel();
    const base = { model, host: client, messages: "pay" };
    await expect(runAgent({ ...base, requireApproval: ["transfer"] })).rejects.toThrow(ConfigError);
    await expect(runAgent({ ...base, runId: "x" })).rejects.toThrow(/field "checkpointer"/);
    await expect(runAgent({ ...base, checkpointer, runId: "../x" })).rejects.toThrow(/field "runId"/);
    await expect(runAgent({ ...base, checkpointer: {} as Checkpointer })).rejects.toThrow(/field "checkpointer"/);
    await expect(runAgent({ ...base, checkpointer, leaseMs: 5 })).rejects.toThrow(/field "leaseMs"/);
    await expect(runAgent({ ...base, checkpointer, requireApproval: "transfer" as never })).rejects.toThrow(/field "requireApproval"/);

    const missing = await resumeAgent({ model, host: client, runId: "nope", checkpointer }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(CheckpointError);
    expect(missing).toMatchObject({ reason: "not_found", runId: "nope" });

    await runAgent({ ...base, checkpointer, runId: "r", maxTurns: 1 });
    await expect(runAgent({ ...base, checkpointer, runId: "r" })).rejects.toMatchObject({ reason: "exists", runId: "r" });
    await expect(resumeAgent({ model, host: client, runId: "r", checkpointer, decisions: { t9: { approve: true } } })).rejects.toMatchObject({
      reason: "not_pending",
      toolUseId: "t9",
    });
    await expect(resumeAgent({ model, host: client, runId: "r", checkpointer, decisions: { t9: { allow: true } as never } })).rejects.toThrow(/decisions.t9/);

    // A run held by a live process: a second resumer gets a clear error.
    await checkpointer.lease("r", "another process", 60_000);
    await expect(resumeAgent({ model, host: client, runId: "r", checkpointer })).rejects.toMatchObject({ reason: "leased", runId: "r" });
    await expect(runAgent({ ...base, checkpointer, runId: "held-new" }).then(() => checkpointer.lease("held-new", "x", 10))).resolves.toBe(true);
  });
});
