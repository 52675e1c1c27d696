/**
 * A stdio server and everything it started. A server run through a launcher (`sh -c`, `npx`, `uvx`,
 * `uv run`) is the launcher's child, so signalling the process we spawned would leave it running. On
 * POSIX each server is therefore spawned as the leader of its own process group (`detached`), and every
 * signal goes to the group. Windows has no process groups for signals: there the tree is ended with
 * `taskkill /T /F`, which finds the descendants by parent id while the server still runs.
 */
import { spawn, type ChildProcess } from "node:child_process";

export const POSIX_GROUPS = process.platform !== "win32";

/** Sends `signal` to the server's whole group (POSIX), or ends its tree (Windows). Never throws. */
export function signalTree(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  try {
    if (POSIX_GROUPS) process.kill(-pid, signal);
    else if (child.exitCode === null && child.signalCode === null) killWindowsTree(pid);
  } catch {
    // The group is gone already.
  }
}

/** True while any process of the group led by `pid` can still be signalled (POSIX only). */
export function groupAlive(pid: number | undefined): boolean {
  if (!POSIX_GROUPS || pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false; // ESRCH: gone; EPERM: not ours to signal any more
  }
}

function killWindowsTree(pid: number): void {
  const killer = spawn("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true });
  killer.on("error", () => {});
  killer.unref();
}

export interface StopTimes {
  /** After closing stdin, how long to wait for the server to exit before SIGTERM. */
  stdinCloseMs: number;
  /** After SIGTERM, how long before SIGKILL (also the grace the group's survivors get). */
  sigtermMs: number;
}

/**
 * Ends a server politely, then firmly: stdin closed, then SIGTERM, then SIGKILL, each to the whole
 * group; then whatever of its group outlived it (a launcher's child, a worker) gets SIGTERM and, after
 * the same grace, SIGKILL. Resolves once the server has exited and its group was told to go.
 */
export async function stopTree(child: ChildProcess, times: StopTimes): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.stdin?.end();
    if (!(await within(exited, times.stdinCloseMs))) {
      signalTree(child, "SIGTERM");
      if (!(await within(exited, times.sigtermMs))) {
        signalTree(child, "SIGKILL");
        await exited;
      }
    }
  }
  await reapGroup(child.pid, times.sigtermMs);
}

/** The group's survivors, after its leader exited: SIGTERM, a grace of `graceMs`, SIGKILL. */
export async function reapGroup(pid: number | undefined, graceMs: number): Promise<void> {
  if (pid === undefined || !groupAlive(pid)) return;
  process.kill(-pid, "SIGTERM");
  // Not our children, so no exit events: poll, bounded by the grace.
  const deadline = performance.now() + graceMs;
  while (groupAlive(pid) && performance.now() < deadline) await pause(GROUP_POLL_MS);
  if (groupAlive(pid)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
}

const GROUP_POLL_MS = 20;

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  if (ms <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const done = await Promise.race([promise.then(() => true), timeout]);
  clearTimeout(timer);
  return done;
}
