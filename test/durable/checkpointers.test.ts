/**
 * The built-in checkpointers: the shared contract (checkpointer-contract.ts) for memory and file, and
 * what only the file checkpointer promises: mode 0600 in a 0700 directory, no temporary file left, a
 * lease of a dead process free at once, and a typed error naming the file for a corrupted, foreign or
 * newer checkpoint.
 */
import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointError, ConfigError, fileCheckpointer, memoryCheckpointer } from "../../src/index.js";
import { checkpointerContract, stateOf } from "./checkpointer-contract.js";

checkpointerContract("memoryCheckpointer", async () => ({ checkpointer: memoryCheckpointer() }));

checkpointerContract("fileCheckpointer", async () => {
  const dir = await mkdtemp(join(tmpdir(), "checkpoints-"));
  return { checkpointer: fileCheckpointer(join(dir, "runs")), cleanup: () => rm(dir, { recursive: true, force: true }) };
});

describe("fileCheckpointer", () => {
  const withDir = async (test: (dir: string) => Promise<void>) => {
    const dir = await mkdtemp(join(tmpdir(), "checkpoints-"));
    try {
      await test(join(dir, "runs"));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };

  it("keeps one file per run, mode 0600 in a 0700 directory, with no temporary or lock file left", () =>
    withDir(async (dir) => {
      const checkpointer = fileCheckpointer(dir);
      for (let revision = 0; revision < 3; revision++) await checkpointer.save("one", stateOf("one"), revision);
      await checkpointer.lease("one", "me", 60_000);
      expect((await readdir(dir)).sort()).toEqual(["one.lease", "one.run.json"]);
      expect((await stat(join(dir, "one.run.json"))).mode & 0o777).toBe(0o600);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    }));

  it("a lease whose process is gone is free at once", () =>
    withDir(async (dir) => {
      const checkpointer = fileCheckpointer(dir);
      const gone = spawnSync(process.execPath, ["-e", ""]).pid;
      await checkpointer.lease("held", "other", 60_000);
      const file = join(dir, "held.lease");
      const { readFile } = await import("node:fs/promises");
      const lease = JSON.parse(await readFile(file, "utf8")) as { pid: number };
      // The same lease, as a process that has exited would have left it.
      await writeFile(file, JSON.stringify({ ...lease, pid: gone }));
      expect(await checkpointer.lease("held", "me", 60_000)).toBe(true);
      // A live process's lease (this one's, under another owner) still holds.
      expect(await checkpointer.lease("held", "third", 60_000)).toBe(false);
    }));

  it("a corrupted, foreign or newer checkpoint is a CheckpointError naming the run and the file", () =>
    withDir(async (dir) => {
      const checkpointer = fileCheckpointer(dir);
      await checkpointer.save("x", stateOf("x"), 0);
      const file = join(dir, "x.run.json");
      const cases: Array<[string, string]> = [
        ['{"format":"mcp-switchboard/checkpoint","revision":1}\n{"kind":"mcp-switch', "corrupt"],
        ['{"hello":"world"}\n', "foreign"],
        [`{"format":"mcp-switchboard/checkpoint","revision":1}\n${JSON.stringify({ ...stateOf("x"), version: 99 })}\n`, "newer_version"],
        [`{"format":"mcp-switchboard/checkpoint","revision":1}\n${JSON.stringify(stateOf("y"))}\n`, "foreign"],
        [`{"format":"mcp-switchboard/checkpoint","revision":1}\n${JSON.stringify({ ...stateOf("x"), status: "sleeping" })}\n`, "corrupt"],
      ];
      for (const [text, reason] of cases) {
        await writeFile(file, text);
        const error = await checkpointer.load("x").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(CheckpointError);
        expect(error).toMatchObject({ reason, runId: "x" });
        expect((error as Error).message).toContain(file);
      }
    }));

  it("two processes read-modify-writing one run lose no update: the revision check holds across processes", { timeout: 60_000 }, () =>
    withDir(async (dir) => {
      const saver = fileURLToPath(new URL("../fixtures/durable/saver.ts", import.meta.url));
      const run = (tag: string) =>
        new Promise<number>((resolve, reject) => {
          execFile(process.execPath, ["--import", "tsx", saver, dir, tag, "25"], { timeout: 50_000 }, (error, stdout, stderr) =>
            error ? reject(new Error(`saver ${tag} failed: ${stderr}`)) : resolve(Number(stdout.trim())),
          );
        });
      const conflicts = await Promise.all([run("a"), run("b")]);
      const stored = await fileCheckpointer(dir).load("shared");
      expect(stored?.revision).toBe(50);
      const texts = stored!.state.messages.map((m) => (m.content[0]?.type === "text" ? m.content[0].text : ""));
      expect(texts.sort()).toEqual([...Array.from({ length: 25 }, (_, i) => `a-${i}`), ...Array.from({ length: 25 }, (_, i) => `b-${i}`)].sort());
      console.log(`two processes, 50 saves, ${conflicts[0] + conflicts[1]} conflicts retried`);
    }),
  );

  it("bad arguments are ConfigErrors naming the field", () => {
    expect(() => fileCheckpointer("")).toThrow(ConfigError);
    const checkpointer = fileCheckpointer(join(tmpdir(), "never-created"));
    return expect(checkpointer.load("../escape")).rejects.toThrow(/field "runId"/);
  });
});
