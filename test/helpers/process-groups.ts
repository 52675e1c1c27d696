/** What `ps` says about processes: which of a set are still running (zombies count as gone). */
import { execFileSync } from "node:child_process";

/** The pids of `pids` that are still running (not zombies). */
export function running(pids: number[]): number[] {
  const table = execFileSync("ps", ["-eo", "pid=,stat="], { encoding: "utf8" });
  const alive = new Set<number>();
  for (const line of table.split("\n")) {
    const [pid, stat] = line.trim().split(/\s+/);
    if (pid && stat && !stat.startsWith("Z")) alive.add(Number(pid));
  }
  return pids.filter((pid) => alive.has(pid));
}

/** The running (not zombie) members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const table = execFileSync("ps", ["-eo", "pid=,pgid=,stat="], { encoding: "utf8" });
  const members: number[] = [];
  for (const line of table.split("\n")) {
    const [pid, group, stat] = line.trim().split(/\s+/);
    if (Number(group) === pgid && stat && !stat.startsWith("Z")) members.push(Number(pid));
  }
  return members;
}
