/**
 * Chaos: 30 durable runs driven by worker processes (six at a time each) that are killed with SIGKILL
 * at random moments, at least 12 times; each new worker resumes every run not yet finished from the
 * file checkpointer, until all are done. Checked: no run lost, no transfer (not idempotent) ran twice
 * under one key, every trace well formed, and each run's transfers are accounted for: ran (the trace
 * has the bank's answer) or reported to the model as of unknown outcome. The next workers are started
 * before the current one is killed (each waits for its order), so start-up time overlaps the runs.
 * It takes over a minute on two loaded cores, so `npm test` skips it: `npm run test:chaos` runs it
 * (and .ci/run runs that). DURABLE_CHAOS_CHECKPOINTER names a module whose default export makes
 * another checkpointer (see WorkerConfig in test/fixtures/durable/worker.ts): a store whose leases do
 * not notice dead processes answers "leased" until the lease expires, and such runs wait for a later
 * worker.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { startBank } from "../fixtures/durable/bank.js";
import { startModelServer } from "../fixtures/model-server.js";
import { payPlan, resultText, startWorker, wellFormed, type Worker, type WorkerLine } from "./helpers.js";

const RUNS = 30;
const KILLS = 14;
/** Workers started ahead of their turn. */
const STANDBY = 3;

let cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

it.skipIf(process.env.DURABLE_CHAOS !== "1")(
  `${RUNS} runs, ${KILLS} random kill -9s, each resumed until done: none lost, no transfer twice, traces well formed`,
  { timeout: 120_000 },
  async () => {
    const bank = await startBank({ delayMs: 60 });
    const model = await startModelServer(payPlan);
    const dir = await mkdtemp(join(tmpdir(), "durable-chaos-"));
    cleanups.push(
      () => bank.close(),
      () => model.close(),
      () => rm(dir, { recursive: true, force: true }),
    );
    const spawnWorker = () => {
      const module = process.env.DURABLE_CHAOS_CHECKPOINTER;
      const worker = startWorker({ dir, bankUrl: bank.url, modelUrl: model.openaiBaseURL, concurrency: 6, ...(module ? { checkpointerModule: module } : {}) });
      cleanups.push(() => worker.kill());
      return worker;
    };
    const runIds = Array.from({ length: RUNS }, (_, i) => `chaos-${String(i).padStart(2, "0")}`);
    const finished = new Map<string, WorkerLine>();
    const errors: WorkerLine[] = [];
    let kills = 0;
    let workers = 0;
    const standby: Worker[] = Array.from({ length: STANDBY }, spawnWorker);
    while (finished.size < RUNS) {
      if (++workers > 40) throw new Error(`not done after 40 workers: ${finished.size} runs finished; errors ${JSON.stringify(errors)}`);
      const current = standby.shift()!;
      await current.ready;
      standby.push(spawnWorker());
      const before = bank.transfers.length;
      current.go({ runIds: runIds.filter((id) => !finished.has(id)) });
      if (kills < KILLS) {
        // Kill once some calls have gone out (so runs are mid-flight), after a random extra moment.
        const deadline = Date.now() + 10_000;
        while (bank.transfers.length === before && Date.now() < deadline && current.child.exitCode === null) await sleep(5);
        // Within the bank's delay, so calls are in flight: with a fast checkpointer (Redis) a worker
        // finished its runs inside a 250 ms window, and the kills fell short of 12 (7 in one run).
        await sleep(Math.floor(Math.random() * 60));
        if (current.child.exitCode === null) {
          await current.kill();
          kills++;
        }
      }
      const { lines } = await current.exited;
      for (const line of lines) {
        if (line.stopReason === "end") finished.set(line.runId, line);
        else if (line.error !== undefined && line.reason !== "leased") errors.push(line);
      }
    }
    await Promise.all(standby.map((worker) => worker.kill()));

    expect(kills).toBeGreaterThanOrEqual(12);
    expect(errors).toEqual([]);
    expect([...finished.keys()].sort()).toEqual(runIds);
    // Not idempotent: no key ran twice.
    expect(new Set(bank.transfers).size).toBe(bank.transfers.length);
    let unknown = 0;
    for (const [runId, run] of finished) {
      expect(run.text).toBe(`done ${runId}`);
      expect(wellFormed(run.messages!)).toBe(true);
      const transfers = run.messages!.flatMap((m) => m.content).filter((b) => b.type === "tool_use" && b.name === "bank__transfer");
      for (const use of transfers) {
        const id = use.type === "tool_use" ? use.id : "";
        const text = resultText(run.messages!, id) ?? "";
        const ran = bank.transfers.includes(`${runId}:${id}`);
        // Either it ran and the model read the bank's answer, or the model was told the outcome is unknown.
        if (/^sent \d+ to /.test(text)) expect(ran).toBe(true);
        else {
          expect(text).toMatch(/outcome of this bank__transfer call is unknown/);
          unknown++;
        }
      }
    }
    console.log(`chaos: ${RUNS} runs, ${workers} workers, ${kills} kills, ${bank.transfers.length} transfers, ${unknown} of unknown outcome`);
  },
);

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
