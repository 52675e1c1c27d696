/**
 * Durable runs across real processes: a worker (test/fixtures/durable/worker.ts) is killed with SIGKILL
 * while a non-idempotent transfer and a read-only balance call are in flight on the bank (the SDK's
 * McpServer over HTTP, in this process, so it outlives the worker); a new worker resumes the run from
 * the file checkpointer. And a run that waits for approval is continued by other processes, approved
 * once and denied once.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startBank, type Bank } from "../fixtures/durable/bank.js";
import { startModelServer, type ModelServer } from "../fixtures/model-server.js";
import { payPlan, resultText, startWorker, wellFormed, type Worker } from "./helpers.js";

let cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

async function setup(): Promise<{ bank: Bank; model: ModelServer; dir: string; worker(requireApproval?: string[]): Worker }> {
  const bank = await startBank();
  const model = await startModelServer(payPlan);
  const dir = await mkdtemp(join(tmpdir(), "durable-crash-"));
  cleanups.push(
    () => bank.close(),
    () => model.close(),
    () => rm(dir, { recursive: true, force: true }),
  );
  return {
    bank,
    model,
    dir,
    worker: (requireApproval) => {
      const worker = startWorker({ dir, bankUrl: bank.url, modelUrl: model.openaiBaseURL, ...(requireApproval ? { requireApproval } : {}) });
      cleanups.push(() => worker.kill());
      return worker;
    },
  };
}

describe("durable runs across processes", () => {
  it(
    "a run killed with calls in flight: the transfer's outcome is unknown to the model and it ran once; the read is re-sent with its key",
    { timeout: 90_000 },
    async () => {
      const { bank, model, worker } = await setup();
      const release = bank.hold();
      const first = worker();
      await first.ready;
      first.go({ runIds: ["crash1"] });
      await bank.started(1);
      await waitUntil(() => bank.reads.length >= 1);
      await first.kill();
      expect((await first.exited).signal).toBe("SIGKILL");
      release();

      const second = worker();
      await second.ready;
      second.go({ runIds: ["crash1"] });
      const { code, lines } = await second.exited;
      expect(code).toBe(0);
      const run = lines[0];
      expect(run.stopReason).toBe("end");
      expect(run.text).toBe("done crash1");
      expect(wellFormed(run.messages!)).toBe(true);

      // The first turn's calls were call_1_0 (transfer) and call_1_1 (balance); the model was asked once
      // before the crash and twice after it (the first turn's answer was replayed, not asked again).
      expect(model.requests).toHaveLength(3);
      expect(bank.transfers).toEqual(["crash1:call_1_0", "crash1:call_2_0"]);
      expect(bank.reads).toEqual(["crash1:call_1_1", "crash1:call_1_1"]);
      expect(resultText(run.messages!, "call_1_0")).toMatch(/outcome of this bank__transfer call is unknown/);
      expect(resultText(run.messages!, "call_1_1")).toBe("crash1: 100");
      const sent = (model.requests[1].body.messages as Array<{ role: string; tool_call_id?: string; content: unknown }>).filter((m) => m.role === "tool");
      expect(sent.map((m) => m.tool_call_id)).toEqual(["call_1_0", "call_1_1"]);
      expect(JSON.stringify(sent[0].content)).toMatch(/unknown/);
    },
  );

  it("a run waits for approval; other processes approve one transfer and deny the next", { timeout: 90_000 }, async () => {
    const { bank, model, worker } = await setup();
    // Started together (each waits for its order), so the test waits for one start-up, not four.
    const [first, second, third, fourth] = [1, 2, 3, 4].map(() => worker(["bank__transfer"])) as [Worker, Worker, Worker, Worker];
    await first.ready;
    first.go({ runIds: ["appr1"] });
    const paused = (await first.exited).lines[0];
    expect(paused.stopReason).toBe("approval");
    expect(paused.pendingApprovals).toEqual([{ toolUseId: "call_1_0", name: "bank__transfer", input: { to: "appr1-a", amount: 1 } }]);
    // Nothing of the turn was sent: the read waits with the transfer.
    expect(bank.transfers).toEqual([]);
    expect(bank.reads).toEqual([]);

    await second.ready;
    second.go({ runIds: ["appr1"], decisions: { appr1: { call_1_0: { approve: true } } } });
    const next = (await second.exited).lines[0];
    expect(next.stopReason).toBe("approval");
    expect(next.pendingApprovals?.map((p) => p.toolUseId)).toEqual(["call_2_0"]);
    expect(bank.transfers).toEqual(["appr1:call_1_0"]);
    expect(bank.reads).toEqual(["appr1:call_1_1"]);

    await third.ready;
    third.go({ runIds: ["appr1"], decisions: { appr1: { call_2_0: { approve: false, reason: "over the daily limit" } } } });
    const done = (await third.exited).lines[0];
    expect(done.stopReason).toBe("end");
    expect(bank.transfers).toEqual(["appr1:call_1_0"]);
    expect(resultText(done.messages!, "call_2_0")).toBe("Call denied: over the daily limit");
    expect(wellFormed(done.messages!)).toBe(true);
    // Three model calls in all: each resumed turn was replayed from the checkpoint.
    expect(model.requests).toHaveLength(3);

    // A decision for a call that is not pending is refused, naming the call.
    await fourth.ready;
    fourth.go({ runIds: ["appr1"], decisions: { appr1: { call_9_9: { approve: true } } } });
    const refused = (await fourth.exited).lines[0];
    expect(refused.reason).toBe("not_pending");
    expect(refused.error).toMatch(/call_9_9/);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
