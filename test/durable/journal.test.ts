/**
 * The file checkpointer's journal: the frame codec (property tests: whole frames come back, a cut or a
 * changed byte never yields a frame it did not write), a torn last record (the file cut at every byte
 * of it loads as the state before, and the next save steps over the torn bytes), compaction, and a
 * checkpoint file of the format before the journal.
 */
import { appendFile, mkdtemp, readFile, readdir, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CheckpointError, fileCheckpointer, type RunState } from "../../src/index.js";
import { decodeFrames, encodeFrame } from "../../src/durable/journal-frame.js";
import { COMPACT_EVERY } from "../../src/durable/journal-file.js";
import { recordFrame, serializeState } from "../../src/durable/journal-record.js";
import { stateOf } from "./checkpointer-contract.js";

const payloads = fc.array(
  fc.json().map((text) => text.replace(/\n/g, " ")),
  { minLength: 1, maxLength: 8 },
);

describe("the journal's frame codec", () => {
  it("decodes what it encoded, in order", () => {
    fc.assert(
      fc.property(payloads, (texts) => {
        const bytes = Buffer.concat(texts.map(encodeFrame));
        const decoded = decodeFrames(bytes);
        expect(decoded.records.map((r) => r.payload)).toEqual(texts);
        expect(decoded.end).toBe(bytes.length);
        expect(decoded.damaged).toBe(0);
      }),
    );
  });

  it("a cut anywhere gives the whole frames before it and nothing of the cut one", () => {
    fc.assert(
      fc.property(payloads, fc.nat(), (texts, at) => {
        const frames = texts.map(encodeFrame);
        const bytes = Buffer.concat(frames);
        const cut = at % (bytes.length + 1);
        const whole = frames.filter((_, i) => Buffer.concat(frames.slice(0, i + 1)).length <= cut).length;
        const decoded = decodeFrames(bytes.subarray(0, cut));
        expect(decoded.records.map((r) => r.payload)).toEqual(texts.slice(0, whole));
        expect(decoded.end).toBe(Buffer.concat(frames.slice(0, whole)).length);
      }),
    );
  });

  it("a changed byte never yields a frame that was not written", () => {
    fc.assert(
      fc.property(payloads, fc.nat(), fc.integer({ min: 1, max: 255 }), (texts, at, flip) => {
        const bytes = Buffer.concat(texts.map(encodeFrame));
        const index = at % bytes.length;
        bytes[index] = bytes[index] ^ flip;
        for (const record of decodeFrames(bytes).records) expect(texts).toContain(record.payload);
      }),
    );
  });
});

describe("fileCheckpointer's journal on disk", () => {
  const withDir = async (test: (dir: string) => Promise<void>) => {
    const dir = await mkdtemp(join(tmpdir(), "journal-"));
    try {
      await test(join(dir, "runs"));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  const turnOf = (state: RunState, n: number): RunState => ({
    ...state,
    messages: [...state.messages, { role: "assistant", content: [{ type: "text", text: `answer ${n} ${"é".repeat(n)}` }] }],
    updatedAt: n,
  });

  it(
    "cut at every byte of its last record, it loads as the state before (or a corrupt error), and the next save steps over the cut",
    { timeout: 120_000 },
    () =>
      withDir(async (dir) => {
        const writer = fileCheckpointer(dir, { fsync: false });
        const file = join(dir, "torn.run.json");
        let state = stateOf("torn");
        await writer.save("torn", state, 0);
        for (let n = 1; n < 4; n++) await writer.save("torn", (state = turnOf(state, n)), n);
        const before = (await stat(file)).size;
        const last = turnOf(state, 4);
        await writer.save("torn", last, 4);
        const whole = await readFile(file);
        expect(whole.length).toBeGreaterThan(before + 20);
        let corrupt = 0;
        for (let cut = before; cut < whole.length; cut++) {
          await writeFile(file, whole.subarray(0, cut));
          const reader = fileCheckpointer(dir, { fsync: false });
          const loaded = await reader.load("torn").catch((error: unknown) => error);
          if (loaded instanceof CheckpointError) {
            expect(loaded.reason).toBe("corrupt");
            corrupt++;
            continue;
          }
          expect(loaded).toEqual({ state, revision: 4 });
          // The run goes on from the state before: the torn bytes never complete a record (checked
          // at every fifth cut and the last bytes, which keeps the test short on a loaded machine).
          if ((cut - before) % 5 !== 0 && cut < whole.length - 3) continue;
          const next = turnOf(state, 5);
          expect(await reader.save("torn", next, 4)).toBe(5);
          expect(await fileCheckpointer(dir).load("torn")).toEqual({ state: next, revision: 5 });
        }
        expect(corrupt).toBe(0);
        await writeFile(file, whole);
        expect(await fileCheckpointer(dir).load("torn")).toEqual({ state: last, revision: 5 });
      }),
  );

  it("a damaged record in the middle is a corrupt error naming the file, not a state without it", () =>
    withDir(async (dir) => {
      const writer = fileCheckpointer(dir, { fsync: false });
      const file = join(dir, "mid.run.json");
      let state = stateOf("mid");
      await writer.save("mid", state, 0);
      const first = (await stat(file)).size;
      for (let n = 1; n < 3; n++) await writer.save("mid", (state = turnOf(state, n)), n);
      const bytes = await readFile(file);
      bytes[first + 30] = bytes[first + 30] ^ 0x20;
      await writeFile(file, bytes);
      const error = await fileCheckpointer(dir)
        .load("mid")
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CheckpointError);
      expect(error).toMatchObject({ reason: "corrupt", runId: "mid", file });
    }));

  it(`appends a record per save, compacts after ${COMPACT_EVERY} of them and when the run stops, and leaves no other file`, () =>
    withDir(async (dir) => {
      const checkpointer = fileCheckpointer(dir);
      const file = join(dir, "long.run.json");
      let state = stateOf("long");
      await checkpointer.save("long", state, 0);
      const sizes: number[] = [];
      for (let n = 1; n <= COMPACT_EVERY + 2; n++) {
        await checkpointer.save("long", (state = turnOf(state, n)), n, { sync: n % 2 === 0 });
        sizes.push((await stat(file)).size);
      }
      const lines = (text: string) => text.split("\n").filter(Boolean).length;
      // Head and whole state, then one line per save until the compaction folds them into one.
      expect(lines(await readFile(file, "utf8"))).toBe(4);
      expect(sizes[COMPACT_EVERY - 1]).toBeLessThan(sizes[COMPACT_EVERY - 2]);
      expect(await fileCheckpointer(dir).load("long")).toEqual({ state, revision: COMPACT_EVERY + 3 });
      await checkpointer.save("long", { ...state, status: "end" }, COMPACT_EVERY + 3);
      expect(lines(await readFile(file, "utf8"))).toBe(2);
      expect((await fileCheckpointer(dir).load("long"))?.state.status).toBe("end");
      expect(await readdir(dir)).toEqual(["long.run.json"]);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
    }));

  it("keeps a bounded number of files open: runs saved in turn, more of them than it keeps open, all go on", () =>
    withDir(async (dir) => {
      const checkpointer = fileCheckpointer(dir, { fsync: false });
      const ids = Array.from({ length: 20 }, (_, i) => `many-${i}`);
      const states = new Map(ids.map((id) => [id, stateOf(id)]));
      for (let revision = 0; revision < 3; revision++) {
        for (const id of ids) {
          states.set(id, turnOf(states.get(id)!, revision));
          expect(await checkpointer.save(id, states.get(id)!, revision)).toBe(revision + 1);
        }
      }
      const reader = fileCheckpointer(dir);
      for (const id of ids) expect(await reader.load(id)).toEqual({ state: states.get(id), revision: 3 });
      for (const id of ids) await checkpointer.release(id, "nobody");
    }));

  it("a save after another process's compaction reads the new file; a stale one is a conflict", () =>
    withDir(async (dir) => {
      const a = fileCheckpointer(dir);
      const b = fileCheckpointer(dir);
      let state = stateOf("two");
      await a.save("two", state, 0);
      await a.save("two", (state = turnOf(state, 1)), 1);
      // b compacts (the run stopped), a still holds a descriptor of the file before.
      await b.save("two", (state = { ...turnOf(state, 2), status: "max_turns" }), 2);
      await expect(a.save("two", turnOf(state, 3), 2)).rejects.toMatchObject({ reason: "conflict" });
      expect(await a.save("two", (state = { ...turnOf(state, 3), status: "running" }), 3)).toBe(4);
      expect(await b.load("two")).toEqual({ state, revision: 4 });
    }));

  it("a file sealed for a compaction that a crash cut short is compacted by the next writer, which then appends", () =>
    withDir(async (dir) => {
      const checkpointer = fileCheckpointer(dir);
      const file = join(dir, "sealed.run.json");
      let state = stateOf("sealed");
      await checkpointer.save("sealed", state, 0);
      state = turnOf(state, 1);
      // What a writer that died between its seal and the rename leaves.
      await appendFile(file, recordFrame(2, "dead00000000", serializeState(state), serializeState(stateOf("sealed")), true));
      const other = fileCheckpointer(dir);
      expect(await other.load("sealed")).toEqual({ state, revision: 2 });
      const next = turnOf(state, 2);
      expect(await other.save("sealed", next, 2)).toBe(3);
      expect((await readFile(file, "utf8")).split("\n").filter(Boolean)).toHaveLength(3);
      expect(await fileCheckpointer(dir).load("sealed")).toEqual({ state: next, revision: 3 });
      // The first writer's descriptor is of the file before: it reads the new one and sees the conflict.
      await expect(checkpointer.save("sealed", turnOf(state, 9), 1)).rejects.toMatchObject({ reason: "conflict" });
      expect(await readdir(dir)).toEqual(["sealed.run.json"]);
    }));

  it("reads a checkpoint file of the format before the journal and rewrites it as a journal", () =>
    withDir(async (dir) => {
      const fixture = await readFile(new URL("../fixtures/durable/checkpoint-v1.run.json", import.meta.url), "utf8");
      const { mkdir } = await import("node:fs/promises");
      await mkdir(dir, { recursive: true });
      const file = join(dir, "old-run.run.json");
      await writeFile(file, fixture, { mode: 0o600 });
      const checkpointer = fileCheckpointer(dir);
      const loaded = await checkpointer.load("old-run");
      expect(loaded?.revision).toBe(3);
      expect(loaded?.state.messages).toHaveLength(3);
      const next = turnOf(loaded!.state, 9);
      expect(await checkpointer.save("old-run", next, 3)).toBe(4);
      expect((await readFile(file, "utf8")).split("\n")[0]).toContain('"journal":1');
      expect(await fileCheckpointer(dir).load("old-run")).toEqual({ state: next, revision: 4 });
      await truncate(file, 10);
      await expect(checkpointer.load("old-run")).rejects.toMatchObject({ reason: "foreign" });
    }));
});
