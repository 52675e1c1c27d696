/**
 * `fileCheckpointer(dir)`: one file per run, `<runId>.run.json` (mode 0600, the directory 0700). A save
 * writes the whole state to a temporary file, flushes it to disk, renames it over the old one and
 * flushes the directory, so a crash (or a power cut) leaves the old checkpoint or the new one, never
 * half of one. The file's first line holds the format and the revision, so the revision check reads a
 * few bytes, not the trace; it runs under a lock file (see src/auth/file-lock.ts) from check to rename.
 * `fsync: false` skips both flushes: a checkpoint then survives the process (a crash, `kill -9`) but
 * not the machine (a power cut may lose the last saves), for a fraction of the cost where flushes are
 * slow. The lease is a small file beside it; a lease whose process is gone (same host, no such pid) is free
 * at once, so a run killed with `kill -9` can be resumed without waiting for the lease to expire.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { CheckpointError, type Checkpointer, type CheckpointErrorReason } from "../agents/checkpointer.js";
import { checkRunState, isRunId, type RunState } from "../agents/run-state.js";
import { withFileLock } from "../auth/file-lock.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";

const FORMAT = "mcp-switchboard/checkpoint";
const SUFFIX = ".run.json";
const HEAD_BYTES = 256;

interface LeaseFile {
  owner: string;
  pid: number;
  host: string;
  expiresAt: number;
}

export interface FileCheckpointerOptions {
  /** Flush each save to disk before it counts (default true); see above for what `false` gives up. */
  fsync?: boolean | undefined;
}

export function fileCheckpointer(dir: string, options: FileCheckpointerOptions = {}): Checkpointer {
  if (typeof dir !== "string" || dir === "") throw new ConfigError("expected the directory to keep checkpoints in", { field: "dir" });
  if (options.fsync !== undefined && typeof options.fsync !== "boolean") throw new ConfigError("expected true or false", { field: "fsync" });
  const flush = options.fsync ?? true;
  const root = resolve(dir);
  let made: Promise<unknown> | undefined;
  const ready = () =>
    (made ??= mkdir(root, { recursive: true, mode: 0o700 }).catch((error: Error) => {
      made = undefined;
      throw new CheckpointError(`Cannot create the checkpoint directory ${root}: ${error.message}`, { runId: "", reason: "io", file: root, cause: error });
    }));
  const fileOf = (runId: string) => {
    if (!isRunId(runId)) throw new ConfigError(`expected a run id, found ${JSON.stringify(runId)}`, { field: "runId" });
    return join(root, `${runId}${SUFFIX}`);
  };
  const locked = async <T>(runId: string, work: () => Promise<T>): Promise<T> => {
    await ready();
    const file = fileOf(runId);
    try {
      return await withFileLock(`${file}.lock`, work, { waitMs: 10_000, staleMs: 60_000 });
    } catch (error) {
      if (error instanceof CheckpointError || error instanceof ConfigError) throw error;
      throw ioError(runId, file, "lock", error);
    }
  };
  return {
    async load(runId) {
      const file = fileOf(runId);
      let text: string;
      try {
        text = await readFile(file, "utf8");
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw ioError(runId, file, "read", error);
      }
      const newline = text.indexOf("\n");
      const head = parse(newline < 0 ? text : text.slice(0, newline));
      if (!isObject(head) || head.format !== FORMAT) throw bad(runId, file, "foreign", "is not an mcp-switchboard checkpoint file");
      const state = newline < 0 ? undefined : parse(text.slice(newline + 1));
      if (typeof head.revision !== "number" || state === undefined) throw bad(runId, file, "corrupt", "is corrupted (not the JSON it should hold)");
      return { state: checkRunState(state, runId, `The checkpoint file ${file}`), revision: head.revision };
    },
    save(runId, state: RunState, revision) {
      const file = fileOf(runId);
      // Serialized before the first await: the run goes on changing its objects.
      const text = `${JSON.stringify({ format: FORMAT, revision: revision + 1 })}\n${JSON.stringify(state)}\n`;
      return locked(runId, async () => {
        const current = await revisionOf(runId, file);
        if (current !== revision) {
          throw new CheckpointError(`Run ${runId} was saved by another writer (revision ${current} in ${file}, expected ${revision})`, {
            runId,
            reason: "conflict",
            file,
          });
        }
        await writeDurably(runId, file, text, flush);
        return revision + 1;
      });
    },
    lease(runId, owner, ttlMs) {
      const file = `${fileOf(runId).slice(0, -SUFFIX.length)}.lease`;
      return locked(runId, async () => {
        const held = await readLease(file);
        const now = Date.now();
        if (held !== undefined && held.owner !== owner && held.expiresAt > now && isAlive(held)) return false;
        const lease: LeaseFile = { owner, pid: process.pid, host: hostname(), expiresAt: now + ttlMs };
        const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
        try {
          await writeFile(temporary, JSON.stringify(lease), { mode: 0o600 });
          await rename(temporary, file);
        } catch (error) {
          await unlink(temporary).catch(() => undefined);
          throw ioError(runId, file, "write", error);
        }
        return true;
      });
    },
    release(runId, owner) {
      const file = `${fileOf(runId).slice(0, -SUFFIX.length)}.lease`;
      return locked(runId, async () => {
        if ((await readLease(file))?.owner === owner) await unlink(file).catch(() => undefined);
      });
    },
    async list() {
      let names: string[];
      try {
        names = await readdir(root);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
        throw ioError("", root, "list", error);
      }
      return names.filter((name) => name.endsWith(SUFFIX)).map((name) => name.slice(0, -SUFFIX.length));
    },
    async delete(runId) {
      const file = fileOf(runId);
      await locked(runId, async () => {
        for (const path of [file, `${file.slice(0, -SUFFIX.length)}.lease`]) {
          await unlink(path).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== "ENOENT") throw ioError(runId, path, "delete", error);
          });
        }
      });
    },
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function bad(runId: string, file: string, reason: CheckpointErrorReason, what: string): CheckpointError {
  return new CheckpointError(`The checkpoint file ${file} of run ${runId} ${what}`, { runId, reason, file });
}

function ioError(runId: string, file: string, action: string, cause: unknown): CheckpointError {
  return new CheckpointError(`Cannot ${action} the checkpoint file ${file}: ${(cause as Error).message}`, { runId, reason: "io", file, cause });
}

/** The revision on the file's first line (0 when there is no file), read without reading the trace. */
async function revisionOf(runId: string, file: string): Promise<number> {
  let handle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return 0;
    throw ioError(runId, file, "read", error);
  }
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
    const text = buffer.toString("utf8", 0, bytesRead);
    const head = parse(text.slice(0, text.indexOf("\n")));
    if (!isObject(head) || head.format !== FORMAT || typeof head.revision !== "number") throw bad(runId, file, "corrupt", "has no valid first line");
    return head.revision;
  } finally {
    await handle.close();
  }
}

async function writeDurably(runId: string, file: string, text: string, flush: boolean): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    const handle = await open(temporary, "wx", 0o600);
    try {
      await handle.writeFile(text);
      if (flush) await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw ioError(runId, file, "write", error);
  }
  if (!flush) return;
  // The rename is durable once the directory is flushed; a power cut before that leaves the old file.
  const directory = await open(join(file, ".."), "r");
  try {
    await directory.sync();
  } catch (error) {
    throw ioError(runId, file, "flush the directory of", error);
  } finally {
    await directory.close();
  }
}

async function readLease(file: string): Promise<LeaseFile | undefined> {
  const value = parse(await readFile(file, "utf8").catch(() => ""));
  if (!isObject(value) || typeof value.owner !== "string" || typeof value.expiresAt !== "number") return undefined;
  return value as unknown as LeaseFile;
}

/** Whether the lease's process may still be alive: certainly so on another host (its expiry decides there). */
function isAlive(lease: LeaseFile): boolean {
  if (lease.host !== hostname() || typeof lease.pid !== "number" || lease.pid === process.pid) return true;
  try {
    process.kill(lease.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
