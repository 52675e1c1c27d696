/**
 * A durable run with deferred tool loading keeps what it loaded: stopped by its turn limit or for an
 * approval (and the approval stop on the file checkpointer, read back by another checkpointer as a
 * new process would), it resumes offering the same tools, without searching again, even when the
 * resume does not repeat `toolLoading`. A version 1 checkpoint (before the loaded tools were kept)
 * rebuilds them from its steps.
 */
import { mkdtemp, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CheckpointError,
  connect,
  fileCheckpointer,
  memoryCheckpointer,
  resumeAgent,
  runAgent,
  RUN_STATE_VERSION,
  type AgentModel,
  type Checkpointer,
  type ModelRequest,
} from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { startBank } from "../fixtures/durable/bank.js";

const closing = closeAfterEach();

/** Turn 1 searches for the balance tool; turn 2 reads the balance and transfers; then it answers. Records what each turn offered. */
function searchingModel(): { model: AgentModel; offered: Map<number, string[]> } {
  const offered = new Map<number, string[]>();
  const model: AgentModel = async ({ turn, tools }: ModelRequest) => {
    offered.set(turn, tools.map((tool) => tool.name).sort());
    if (turn === 1) return { message: { role: "assistant", content: [{ type: "tool_use", id: "s1", name: "search_tools", input: { query: "balance" } }] } };
    if (turn === 2) {
      return {
        message: {
          role: "assistant",
          content: [
            { type: "tool_use", id: "b2", name: "balance", input: { account: "a" } },
            { type: "tool_use", id: "t2", name: "transfer", input: { to: "a", amount: 1 } },
          ],
        },
      };
    }
    return { message: { role: "assistant", content: [{ type: "text", text: "done" }] } };
  };
  return { model, offered };
}

async function bankClient() {
  const bank = closing(await startBank());
  return { bank, client: closing(await connect({ url: bank.url }, { protocol: "legacy" })) };
}

const withDir = async (test: (dir: string) => Promise<void>) => {
  const dir = await mkdtemp(join(tmpdir(), "deferred-resume-"));
  try {
    await test(join(dir, "runs"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

describe("deferred tool loading in a durable run", () => {
  it("a run stopped by its turn limit resumes offering the tools it found, without searching again", async () => {
    const { client } = await bankClient();
    const checkpointer = memoryCheckpointer();
    const first = searchingModel();
    const stopped = await runAgent({ model: first.model, host: client, messages: "balance?", checkpointer, runId: "d1", toolLoading: "deferred", maxTurns: 1 });
    expect(stopped.stopReason).toBe("max_turns");
    expect(stopped.steps[0]?.toolLoading).toMatchObject({ searches: [{ query: "balance", found: expect.arrayContaining(["balance"]) }] });
    const stored = (await checkpointer.load("d1"))!.state;
    expect(stored.version).toBe(RUN_STATE_VERSION);
    expect(stored.toolLoading?.loaded).toContain("balance");

    // Resumed without toolLoading: it goes on deferred, with what it had loaded.
    const second = searchingModel();
    const done = await resumeAgent({ model: second.model, host: client, runId: "d1", checkpointer, maxTurns: 5 });
    expect(done.stopReason).toBe("end");
    expect(second.offered.get(2)).toEqual(expect.arrayContaining(["balance", "search_tools"]));
    expect(second.offered.get(2)).not.toContain("transfer");
    // Turn 2 called transfer by its exact name: loaded from then on.
    expect(second.offered.get(3)).toEqual(["balance", "search_tools", "transfer"].sort());
    expect(done.steps.filter((step) => (step.toolLoading?.searches.length ?? 0) > 0)).toHaveLength(1);
  });

  it("an approval stop on the file checkpointer resumes in another checkpointer with the loaded tools offered", () =>
    withDir(async (dir) => {
      const { bank, client } = await bankClient();
      const first = searchingModel();
      const paused = await runAgent({
        model: first.model,
        host: client,
        messages: "pay",
        checkpointer: fileCheckpointer(dir),
        runId: "d2",
        toolLoading: "deferred",
        pinnedTools: ["transfer"],
        requireApproval: ["transfer"],
      });
      expect(paused.stopReason).toBe("approval");
      expect(first.offered.get(2)).toEqual(["balance", "search_tools", "transfer"].sort());
      const second = searchingModel();
      const done = await resumeAgent({
        model: second.model,
        host: client,
        runId: "d2",
        checkpointer: fileCheckpointer(dir),
        decisions: { t2: { approve: true } },
      });
      expect(done.stopReason).toBe("end");
      // Turn 2 was replayed from the checkpoint; the model's next request carries the loaded tools.
      expect([...second.offered.keys()]).toEqual([3]);
      expect(second.offered.get(3)).toEqual(["balance", "search_tools", "transfer"].sort());
      expect(bank.transfers).toEqual(["d2:t2"]);
    }));

  it("reads a version 1 checkpoint: the loaded tools come from its steps; a newer version is refused", () =>
    withDir(async (dir) => {
      const { client } = await bankClient();
      await mkdir(dir, { recursive: true });
      const fixture = await readFile(new URL("../fixtures/durable/checkpoint-v1.run.json", import.meta.url), "utf8");
      await writeFile(join(dir, "old-run.run.json"), fixture);
      const checkpointer: Checkpointer = fileCheckpointer(dir);
      const loaded = await checkpointer.load("old-run");
      expect(loaded?.state).toMatchObject({ version: RUN_STATE_VERSION, toolLoading: { pinned: [], loaded: ["balance"] } });
      const second = searchingModel();
      const resumed = await resumeAgent({ model: second.model, host: client, runId: "old-run", checkpointer, maxTurns: 2 });
      expect(resumed.stopReason).toBe("max_turns");
      expect(second.offered.get(2)).toEqual(["balance", "search_tools"]);
      expect((await checkpointer.load("old-run"))?.state.toolLoading?.loaded).toEqual(["balance", "transfer"]);

      const [head, state] = fixture.split("\n") as [string, string];
      await writeFile(
        join(dir, "new-run.run.json"),
        `${head}\n${state.replace('"version":1', `"version":${RUN_STATE_VERSION + 1}`).replace('"old-run"', '"new-run"')}\n`,
      );
      const error = await checkpointer.load("new-run").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckpointError);
      expect(error).toMatchObject({ reason: "newer_version", runId: "new-run" });
    }));
});
