/**
 * `fileCheckpointer(dir)`: one file per run, `<runId>.run.json` (mode 0600, the directory 0700), kept
 * as a journal (journal-record.ts): a save appends one framed record of what changed, with one write
 * and one flush of the data, instead of rewriting the whole state through a temporary file, a rename
 * and a flush of the directory (on this disk each flush is one to two milliseconds, and a step of a run
 * saves twice). A record cut short by a crash or a power cut fails its length or checksum and is
 * dropped on load: the run reads as of the save before, which had not resolved. Every 64 records, and
 * when a run stops, the file is compacted: the writer seals it with its record, then writes the whole
 * state to a temporary file, flushes it, renames it over the journal and flushes the directory.
 *
 * The revision check needs no lock: records are appended with O_APPEND, and a writer checks after its
 * write that the first record of its revision is its own (by nonce), else the save is a conflict.
 * Compaction takes the lock file (src/auth/file-lock.ts), and appends stop at a seal, so no record is
 * appended to a file that is being replaced. `sync: false` saves (a run's results) are written but not
 * flushed: they survive the process, and the next flushed save carries them to the disk.
 * `fsync: false` skips every flush: a checkpoint then survives the process (a crash, `kill -9`) but
 * not the machine. The lease is a small file beside it; a lease whose process is gone (same host, no
 * such pid) is free at once, so a run killed with `kill -9` can be resumed without waiting.
 */
import { randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join, resolve } from "node:path";
import { CheckpointError, type Checkpointer } from "../agents/checkpointer.js";
import { checkRunState, isRunId, type RunState } from "../agents/run-state.js";
import { withFileLock } from "../auth/file-lock.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";
import { JournalFiles } from "./journal-file.js";
import { fileError, parse, readJournal, serializeState, stateOf } from "./journal-record.js";

const SUFFIX = ".run.json";

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
  const journals = new JournalFiles(flush, ioError);
  const queues = new Map<string, Promise<number>>();
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
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw ioError(runId, file, "read", error);
      }
      const view = readJournal(bytes);
      if (!("revision" in view) || view.state === undefined)
        throw fileError(runId, file, "revision" in view ? { reason: "corrupt", what: "holds no state" } : view);
      return { state: checkRunState(stateOf(view.state), runId, `The checkpoint file ${file}`), revision: view.revision };
    },
    save(runId, state: RunState, revision, saveOptions) {
      const file = fileOf(runId);
      // Serialized before the first await: the run goes on changing its objects.
      const next = serializeState(state);
      const options = { sync: saveOptions?.sync !== false, final: state.status !== "running" };
      // One save of a run at a time in this process; other processes are told apart by the revision check.
      const saved = (queues.get(runId) ?? Promise.resolve())
        .catch(() => undefined)
        .then(async () => {
          await ready();
          return journals.save(runId, file, next, revision, options);
        });
      queues.set(runId, saved);
      const settled = () => {
        if (queues.get(runId) === saved) queues.delete(runId);
      };
      saved.then(settled, settled);
      return saved;
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
    async release(runId, owner) {
      const file = `${fileOf(runId).slice(0, -SUFFIX.length)}.lease`;
      // The process is done with the run: its descriptor need not stay open.
      await queues.get(runId)?.catch(() => undefined);
      await journals.forget(runId);
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
      await journals.forget(runId);
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

function ioError(runId: string, file: string, action: string, cause: unknown): CheckpointError {
  return new CheckpointError(`Cannot ${action} the checkpoint file ${file}: ${(cause as Error).message}`, { runId, reason: "io", file, cause });
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
