/**
 * The writes of the file checkpointer (see file-checkpointer.ts for the design): a save appends one
 * record to the run's journal through a descriptor kept open between saves, and the revision check is
 * made from the descriptor's size alone when no one else wrote since (one fstat), else by reading the
 * journal again. Plain descriptors, not FileHandles: one is kept per run until the run stops, and a
 * checkpointer dropped with some open must not warn when they are collected.
 */
import { randomBytes } from "node:crypto";
import { close, constants, fdatasync, fstat, link, open, read, write, type Stats } from "node:fs";
import { open as openHandle, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { CheckpointError } from "../agents/checkpointer.js";
import { withFileLock } from "../auth/file-lock.js";
import { HEAD_LINE, fileError, readJournal, recordFrame, writerOf, type JournalView, type SerializedState } from "./journal-record.js";

const openFd = promisify(open);
const closeFd = promisify(close);
const fstatFd = promisify(fstat) as (fd: number) => Promise<Stats>;
const syncFd = promisify(fdatasync);
const readFd = promisify(read);
const writeFd = promisify(write);
const linkFile = promisify(link);

/** Records after a whole state before the file is compacted again. */
export const COMPACT_EVERY = 64;
/** Descriptors kept open at most; the least recently saved run's is closed first. */
const OPEN_MAX = 16;

interface OpenJournal {
  fd: number;
  ino: number;
  view: JournalView & { state: SerializedState };
}

export interface AppendOptions {
  /** Flush this save before it resolves (when the checkpointer flushes at all). */
  sync: boolean;
  /** The run stopped: compact the file now. */
  final: boolean;
}

export class JournalFiles {
  private readonly open = new Map<string, OpenJournal>();

  constructor(
    private readonly flush: boolean,
    private readonly ioError: (runId: string, file: string, action: string, cause: unknown) => CheckpointError,
  ) {}

  /** Stores `next` as revision `revision + 1` when the file is at `revision`; resolves to the new revision. */
  async save(runId: string, file: string, next: SerializedState, revision: number, options: AppendOptions): Promise<number> {
    const journal = await this.current(runId, file, revision);
    const stored = journal?.view.revision ?? 0;
    if (stored !== revision) throw conflict(runId, file, stored, revision);
    if (journal === undefined) {
      await this.create(runId, file, next);
      return 1;
    }
    if (journal.view.legacy) {
      await this.forget(runId);
      await this.replace(runId, file, journal.ino, revision, revision + 1, next, this.flush);
      return revision + 1;
    }
    const seal = options.final || journal.view.records + 1 >= COMPACT_EVERY;
    const nonce = randomBytes(6).toString("hex");
    const record = recordFrame(revision + 1, nonce, next, journal.view.state, seal);
    // After a write cut short, a line of its own, so the torn bytes can never complete a record.
    const frame = journal.view.end < journal.view.size ? Buffer.concat([Buffer.from("!\n"), record]) : record;
    let stats: Stats;
    try {
      await writeAll(journal.fd, frame);
      if (this.flush && (options.sync || seal)) await syncFd(journal.fd);
      stats = await fstatFd(journal.fd);
    } catch (error) {
      await this.forget(runId);
      throw this.ioError(runId, file, "write", error);
    }
    if (stats.nlink === 0) {
      // Deleted, or replaced by a compaction since this process last saved: the record went nowhere.
      await this.forget(runId);
      throw conflict(runId, file, -1, revision);
    }
    const { size } = stats;
    const from = journal.view.size;
    if (size === from + frame.length) {
      journal.view = { ...journal.view, revision: revision + 1, state: next, size, end: size, records: journal.view.records + 1, sealed: seal };
    } else {
      // Another writer appended too: the first record of this revision won.
      const appended = Buffer.alloc(size - from);
      await readFd(journal.fd, appended, 0, appended.length, from);
      await this.forget(runId);
      if (writerOf(appended, revision + 1) !== nonce) throw conflict(runId, file, revision + 1, revision);
    }
    if (seal) {
      // The record is in (and flushed): a failed compaction leaves a sealed file the next save compacts.
      await this.replace(runId, file, journal.ino, revision + 1, revision + 1, next, this.flush).catch(() => undefined);
      await this.forget(runId);
    }
    return revision + 1;
  }

  /** Closes the run's descriptor (after a delete, or when the run stops). */
  async forget(runId: string): Promise<void> {
    const journal = this.open.get(runId);
    if (journal === undefined) return;
    this.open.delete(runId);
    await closeFd(journal.fd).catch(() => undefined);
  }

  /**
   * The journal as this process last left it, else read again (undefined: no file). When the save is
   * on the revision this process wrote last, it is not checked here: the check after the append sees
   * anything another writer did since (a record, a seal, a delete).
   */
  private async current(runId: string, file: string, revision: number): Promise<OpenJournal | undefined> {
    const known = this.open.get(runId);
    if (known !== undefined) {
      this.open.delete(runId);
      this.open.set(runId, known);
      if (known.view.revision === revision && !known.view.sealed) return known;
      const now = await fstatFd(known.fd).catch(() => undefined);
      if (now !== undefined && now.nlink > 0 && now.size === known.view.size && !known.view.sealed) return known;
      await this.forget(runId);
    }
    for (let attempt = 0; ; attempt++) {
      let fd: number;
      try {
        // Not O_CREAT: the first save makes the file whole, by a link.
        fd = await openFd(file, constants.O_RDWR | constants.O_APPEND);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw this.ioError(runId, file, "open", error);
      }
      let view: JournalView;
      let ino: number;
      try {
        const stats = await fstatFd(fd);
        ino = stats.ino;
        const bytes = Buffer.alloc(stats.size);
        const { bytesRead } = await readFd(fd, bytes, 0, bytes.length, 0);
        const read = readJournal(bytes.subarray(0, bytesRead));
        if (!("revision" in read)) throw fileError(runId, file, read);
        view = read;
      } catch (error) {
        await closeFd(fd).catch(() => undefined);
        if (error instanceof CheckpointError) throw error;
        throw this.ioError(runId, file, "read", error);
      }
      if (view.sealed || view.state === undefined) {
        await closeFd(fd).catch(() => undefined);
        if (attempt >= 3 || view.state === undefined) throw this.ioError(runId, file, "compact", new Error("the file stays sealed"));
        await this.replace(runId, file, ino, view.revision, view.revision, view.state, this.flush);
        continue;
      }
      const journal: OpenJournal = { fd, ino, view: { ...view, state: view.state } };
      this.open.set(runId, journal);
      for (const [id, other] of this.open) {
        if (this.open.size <= OPEN_MAX) break;
        this.open.delete(id);
        await closeFd(other.fd).catch(() => undefined);
      }
      return journal;
    }
  }

  /** The first save: the whole state, in place at once (a link fails if another writer made the file first). */
  private async create(runId: string, file: string, next: SerializedState): Promise<void> {
    const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      await writeTemporary(temporary, next, 1, this.flush);
      await linkFile(temporary, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") throw conflict(runId, file, 1, 0);
      throw this.ioError(runId, file, "write", error);
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
    // Flushed even for a save that need not be: later appends flush the file's data, not its name.
    if (this.flush) await syncDirectory(runId, file, this.ioError);
  }

  /**
   * Writes revision `revision` as one whole record in a new file and renames it over the journal,
   * under the lock file, if the journal is still the file `ino` at revision `expected` (else another
   * writer compacted it already, or moved on: nothing to do).
   */
  private async replace(runId: string, file: string, ino: number, expected: number, revision: number, state: SerializedState, flush: boolean) {
    await withFileLock(
      `${file}.lock`,
      async () => {
        const now = await stat(file).catch(() => undefined);
        if (now?.ino !== ino) {
          if (expected !== revision) throw conflict(runId, file, -1, expected);
          return;
        }
        const temporary = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
        try {
          await writeTemporary(temporary, state, revision, flush);
          await rename(temporary, file);
        } catch (error) {
          await unlink(temporary).catch(() => undefined);
          throw this.ioError(runId, file, "write", error);
        }
        if (flush) await syncDirectory(runId, file, this.ioError);
      },
      { waitMs: 10_000, staleMs: 60_000 },
    ).catch((error: unknown) => {
      if (error instanceof CheckpointError) throw error;
      throw this.ioError(runId, file, "lock", error);
    });
  }
}

function conflict(runId: string, file: string, current: number, expected: number): CheckpointError {
  const found = current < 0 ? "changed" : `revision ${current}`;
  return new CheckpointError(`Run ${runId} was saved by another writer (${found} in ${file}, expected ${expected})`, { runId, reason: "conflict", file });
}

async function writeAll(fd: number, bytes: Buffer): Promise<void> {
  // One write call, so that concurrent appends never interleave; a short write is an error, and the
  // bytes it left are a cut-short record that the next append steps over.
  const { bytesWritten } = await writeFd(fd, bytes, 0, bytes.length, null);
  if (bytesWritten !== bytes.length) throw new Error(`short write (${bytesWritten} of ${bytes.length} bytes)`);
}

async function writeTemporary(temporary: string, state: SerializedState, revision: number, flush: boolean): Promise<void> {
  const handle = await openHandle(temporary, "wx", 0o600);
  try {
    await handle.writeFile(Buffer.concat([Buffer.from(HEAD_LINE), recordFrame(revision, randomBytes(6).toString("hex"), state, undefined)]));
    if (flush) await handle.datasync();
  } finally {
    await handle.close();
  }
}

async function syncDirectory(runId: string, file: string, ioError: (runId: string, file: string, action: string, cause: unknown) => CheckpointError) {
  // A rename or link is durable once the directory is flushed; a power cut before that leaves the old file.
  const directory = await openHandle(join(file, ".."), "r");
  try {
    await directory.sync();
  } catch (error) {
    throw ioError(runId, file, "flush the directory of", error);
  } finally {
    await directory.close();
  }
}
