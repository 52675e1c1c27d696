/**
 * A lock file beside a data file, so two processes never read-modify-write it at once: created with
 * O_EXCL (atomic on local file systems), holding the owner's pid and start time. A lock whose owner
 * is gone (no such pid) or that is older than `staleMs` is broken; a live lock is waited for, with a
 * short jittered pause, up to `waitMs`.
 */
import { open, readFile, rename, stat, unlink } from "node:fs/promises";
import { sleep } from "../util/timers.js";
import { AuthorizationError } from "./errors.js";

export interface LockOptions {
  /** Give up after this long (default 30000 ms). */
  waitMs?: number;
  /** A lock older than this is taken to be abandoned (default 120000 ms: longer than any token request). */
  staleMs?: number;
}

export async function withFileLock<T>(lockPath: string, work: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  await acquire(lockPath, options.waitMs ?? 30_000, options.staleMs ?? 120_000);
  try {
    return await work();
  } finally {
    await unlink(lockPath).catch(() => {});
  }
}

async function acquire(lockPath: string, waitMs: number, staleMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, "wx", 0o600);
      await handle.writeFile(`${process.pid} ${Date.now()}\n`);
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
        throw new AuthorizationError(`Cannot create the lock file ${lockPath}: ${(error as Error).message}`, { cause: error });
      }
    }
    if (await isStale(lockPath, staleMs)) {
      // Renaming first makes breaking the lock atomic: of two processes that both judge it stale,
      // one renames it and the other's rename fails, so neither removes a lock taken in between.
      const aside = `${lockPath}.${process.pid}.${attempt}.stale`;
      if (
        await rename(lockPath, aside).then(
          () => true,
          () => false,
        )
      )
        await unlink(aside).catch(() => {});
      continue;
    }
    if (Date.now() >= deadline) {
      throw new AuthorizationError(
        `Timed out after ${waitMs} ms waiting for the lock ${lockPath} (another process holds it; remove the file if no process does)`,
      );
    }
    await sleep(10 + Math.floor(Math.random() * 40));
  }
}

async function isStale(lockPath: string, staleMs: number): Promise<boolean> {
  let text: string;
  let ageMs: number;
  try {
    ageMs = Date.now() - (await stat(lockPath)).mtimeMs;
    text = await readFile(lockPath, "utf8");
  } catch {
    return false; // gone already: the next attempt creates it
  }
  if (ageMs > staleMs) return true;
  const pid = Number(text.trim().split(" ")[0]);
  // Not written yet: its owner is between creating and writing it, or died there.
  if (!Number.isInteger(pid) || pid <= 0) return ageMs > 5_000;
  if (pid === process.pid) return false; // held by another task of this process
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
