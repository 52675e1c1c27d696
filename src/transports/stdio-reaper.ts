/**
 * No orphans when the parent goes. Each stdio server leads its own process group (process-tree.ts), so
 * it no longer gets the terminal's Ctrl-C with its parent, and a launcher's child would outlive a kill
 * of the launcher. While at least one server lives:
 * - on `exit`, every server's group is killed (SIGKILL: nothing asynchronous can run any more);
 * - on SIGINT, SIGTERM or SIGHUP that would end the parent (no other listener for it), every group is
 *   killed and the signal is raised again, so the parent ends as it would have;
 * - on SIGINT or SIGHUP that the application handles itself, the signal is passed on to every group,
 *   as a terminal did before the servers had groups of their own; the application decides the rest,
 *   and its exit kills what is left.
 * Windows has no groups for signals: there only the direct child is killed on exit.
 */
import type { ChildProcess } from "node:child_process";
import { POSIX_GROUPS } from "./process-tree.js";

const live = new Set<ChildProcess>();
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
type ReapedSignal = (typeof SIGNALS)[number];

function signalAll(signal: NodeJS.Signals): void {
  for (const child of live) {
    try {
      if (POSIX_GROUPS && child.pid !== undefined) process.kill(-child.pid, signal);
      else child.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

function killAll(): void {
  signalAll("SIGKILL");
}

function onSignal(signal: ReapedSignal): void {
  if (process.listenerCount(signal) > 1) {
    if (signal !== "SIGTERM") signalAll(signal);
    return;
  }
  killAll();
  uninstall();
  process.kill(process.pid, signal);
}

const handlers = new Map<ReapedSignal, () => void>(SIGNALS.map((signal) => [signal, () => onSignal(signal)]));

function install(): void {
  process.on("exit", killAll);
  // First in line, so an application's `once` listener has not yet removed itself when we count.
  if (POSIX_GROUPS) for (const [signal, handler] of handlers) process.prependListener(signal, handler);
}

function uninstall(): void {
  process.off("exit", killAll);
  for (const [signal, handler] of handlers) process.off(signal, handler);
}

export function track(child: ChildProcess): void {
  if (live.size === 0) install();
  live.add(child);
}

export function untrack(child: ChildProcess): void {
  if (!live.delete(child)) return;
  if (live.size === 0) uninstall();
}

/** For tests: how many server processes (groups) are alive. */
export function liveProcessCount(): number {
  return live.size;
}
