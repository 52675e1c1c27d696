/**
 * This process's child processes running `script` (pgrep -P -f), to prove a benchmark left no server
 * process behind. Matching the script leaves out helpers that are not ours to stop (tsx's esbuild service).
 */
import { execFileSync } from "node:child_process";

export function childPids(script: string): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(process.pid), "-f", script.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch (error) {
    // pgrep exits 1 when nothing matches.
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

/** Waits (bounded: 10 s) until no child process is left; throws naming the survivors, after killing them. */
export async function waitForNoChildren(script: string, label: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let left = childPids(script);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = childPids(script);
  }
  if (left.length === 0) return;
  const described = left.slice(0, 5).map(describe);
  for (const pid of left) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone in the meantime.
    }
  }
  throw new Error(`${label}: ${left.length} server process(es) still running after close after 10 s: ${described.join("; ")}`);
}

function describe(pid: number): string {
  try {
    return `${pid} ${execFileSync("ps", ["-o", "args=", "-p", String(pid)], { encoding: "utf8" }).trim()}`;
  } catch {
    return String(pid);
  }
}
