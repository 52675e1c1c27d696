/**
 * No orphans: when the parent process exits normally, kill every server process still running. One
 * `exit` listener for all of them, registered while at least one lives and removed after the last.
 */
import type { ChildProcess } from "node:child_process";

const live = new Set<ChildProcess>();

function killAll(): void {
  for (const child of live) {
    try {
      child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

export function track(child: ChildProcess): void {
  if (live.size === 0) process.on("exit", killAll);
  live.add(child);
}

export function untrack(child: ChildProcess): void {
  if (!live.delete(child)) return;
  if (live.size === 0) process.off("exit", killAll);
}

/** For tests: how many server processes are alive. */
export function liveProcessCount(): number {
  return live.size;
}
