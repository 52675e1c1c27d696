/**
 * The behaviour every Checkpointer must have, as one suite to run against any implementation (memory,
 * file, and a Redis one): loads what was saved (a copy), refuses a save on a stale revision (one of two
 * racing writers wins), a lease held by one owner is refused to another until released or expired,
 * and list/delete see the runs. `make` returns a fresh, empty checkpointer and what to do afterwards.
 */
import { describe, expect, it } from "vitest";
import { CheckpointError, RUN_STATE_KIND, RUN_STATE_VERSION, type Checkpointer, type RunState } from "../../src/index.js";

export interface ContractSubject {
  checkpointer: Checkpointer;
  cleanup?(): Promise<void>;
}

export function stateOf(runId: string, text = "hello"): RunState {
  return {
    kind: RUN_STATE_KIND,
    version: RUN_STATE_VERSION,
    runId,
    status: "running",
    messages: [{ role: "user", content: [{ type: "text", text }] }],
    usage: { inputTokens: 1 },
    steps: [],
    createdAt: 1,
    updatedAt: 2,
  };
}

export function checkpointerContract(name: string, make: () => Promise<ContractSubject>): void {
  const using = async (test: (checkpointer: Checkpointer) => Promise<void>) => {
    const subject = await make();
    try {
      await test(subject.checkpointer);
    } finally {
      await subject.cleanup?.();
    }
  };

  describe(`${name}: the Checkpointer contract`, () => {
    it("loads undefined for a run without a checkpoint, then what was saved, as a copy", () =>
      using(async (checkpointer) => {
        expect(await checkpointer.load("r1")).toBeUndefined();
        const state = stateOf("r1");
        expect(await checkpointer.save("r1", state, 0)).toBe(1);
        state.messages.push({ role: "user", content: [{ type: "text", text: "changed after the save" }] });
        const loaded = await checkpointer.load("r1");
        expect(loaded).toEqual({ state: stateOf("r1"), revision: 1 });
        loaded!.state.messages.length = 0;
        expect((await checkpointer.load("r1"))!.state.messages).toHaveLength(1);
        expect(await checkpointer.save("r1", stateOf("r1", "second"), 1)).toBe(2);
        expect((await checkpointer.load("r1"))!.state.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "second" }] });
      }));

    it("refuses a save on a stale revision with a CheckpointError naming the run; of two racing writers one wins", () =>
      using(async (checkpointer) => {
        await checkpointer.save("r2", stateOf("r2"), 0);
        const stale = await checkpointer.save("r2", stateOf("r2"), 0).catch((error: unknown) => error);
        expect(stale).toBeInstanceOf(CheckpointError);
        expect(stale).toMatchObject({ reason: "conflict", runId: "r2" });
        const race = await Promise.allSettled([checkpointer.save("r2", stateOf("r2", "a"), 1), checkpointer.save("r2", stateOf("r2", "b"), 1)]);
        expect(race.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        expect(race.filter((r) => r.status === "rejected").map((r) => r.reason.reason)).toEqual(["conflict"]);
        expect((await checkpointer.load("r2"))!.revision).toBe(2);
      }));

    it("a lease is one owner's until released or expired; its owner renews it", () =>
      using(async (checkpointer) => {
        expect(await checkpointer.lease("r3", "a", 60_000)).toBe(true);
        expect(await checkpointer.lease("r3", "b", 60_000)).toBe(false);
        expect(await checkpointer.lease("r3", "a", 60_000)).toBe(true);
        await checkpointer.release("r3", "b");
        expect(await checkpointer.lease("r3", "b", 60_000)).toBe(false);
        await checkpointer.release("r3", "a");
        // Long enough that a loaded machine still asks again before it expires.
        expect(await checkpointer.lease("r3", "b", 1_000)).toBe(true);
        expect(await checkpointer.lease("r3", "a", 60_000)).toBe(false);
        await new Promise((r) => setTimeout(r, 1_200));
        expect(await checkpointer.lease("r3", "a", 60_000)).toBe(true);
      }));

    it("lists the runs with a checkpoint; delete removes the checkpoint and the lease", () =>
      using(async (checkpointer) => {
        await checkpointer.save("r4", stateOf("r4"), 0);
        await checkpointer.save("r5", stateOf("r5"), 0);
        await checkpointer.lease("r4", "a", 60_000);
        expect((await checkpointer.list()).sort()).toEqual(["r4", "r5"]);
        await checkpointer.delete("r4");
        expect(await checkpointer.list()).toEqual(["r5"]);
        expect(await checkpointer.load("r4")).toBeUndefined();
        expect(await checkpointer.lease("r4", "b", 60_000)).toBe(true);
        expect(await checkpointer.save("r4", stateOf("r4"), 0)).toBe(1);
      }));
  });
}
