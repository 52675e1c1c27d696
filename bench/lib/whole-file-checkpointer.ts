/**
 * The file checkpointer as it was before the journal (src/durable/file-checkpointer.ts says why it
 * changed), kept for bench/durable.ts to measure beside it in the same run: every save writes the
 * whole state to a temporary file, flushes it, renames it over the old one and flushes the directory,
 * with the revision check under a lock file. Leases and the list are kept in memory: a bench run only
 * needs them to work, not to survive.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import type * as Source from "../../src/index.js";
import { withFileLock } from "../../src/auth/file-lock.js";

export function wholeFileCheckpointer(dir: string, base: Source.Checkpointer): Source.Checkpointer {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const fileOf = (runId: string) => join(dir, `${runId}.run.json`);
  const read = async (runId: string) => {
    const text = await readFile(fileOf(runId), "utf8").catch(() => undefined);
    if (text === undefined) return undefined;
    const newline = text.indexOf("\n");
    return { revision: (JSON.parse(text.slice(0, newline)) as { revision: number }).revision, text: text.slice(newline + 1) };
  };
  return {
    ...base,
    async load(runId) {
      const stored = await read(runId);
      return stored && { revision: stored.revision, state: JSON.parse(stored.text) as Source.RunState };
    },
    save(runId, state, revision) {
      const text = `${JSON.stringify({ revision: revision + 1 })}\n${JSON.stringify(state)}\n`;
      return withFileLock(`${fileOf(runId)}.lock`, async () => {
        const handle = await open(fileOf(runId), "r").catch(() => undefined);
        let current = 0;
        if (handle !== undefined) {
          const head = Buffer.alloc(256);
          const { bytesRead } = await handle.read(head, 0, 256, 0);
          await handle.close();
          const line = head.toString("utf8", 0, bytesRead);
          current = (JSON.parse(line.slice(0, line.indexOf("\n"))) as { revision: number }).revision;
        }
        if (current !== revision) throw new Error(`conflict: revision ${current}, expected ${revision}`);
        const temporary = `${fileOf(runId)}.${randomBytes(6).toString("hex")}.tmp`;
        const file = await open(temporary, "wx", 0o600);
        await file.writeFile(text);
        await file.datasync();
        await file.close();
        await rename(temporary, fileOf(runId));
        const directory = await open(dir, "r");
        await directory.sync();
        await directory.close();
        return revision + 1;
      });
    },
  };
}
