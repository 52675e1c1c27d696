/**
 * CPU time (user + system) a process has spent, in microseconds, read from Linux's /proc: how a
 * benchmark says which of its processes a call's time went to. Undefined where /proc is missing.
 */
import { readFileSync } from "node:fs";

/** Linux's USER_HZ: /proc/<pid>/stat counts CPU time in these ticks, 100 a second on every mainstream build. */
const TICKS_PER_SECOND = 100;

export function processCpuMicros(pid: number): number | undefined {
  if (pid === process.pid) {
    const usage = process.cpuUsage();
    return usage.user + usage.system;
  }
  try {
    // The command name in parentheses may hold spaces; the fields after it are fixed: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
  } catch {
    return undefined;
  }
}

/** Each named process's CPU per call over `work`, in microseconds (rounded); absent where /proc could not be read. */
export async function cpuPerCall<T>(pids: Record<string, number>, calls: number, work: () => Promise<T>): Promise<{ result: T; cpu: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, processCpuMicros(pid)]));
  const result = await work();
  const cpu: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) {
    const start = before[name];
    const end = processCpuMicros(pid);
    if (start !== undefined && end !== undefined) cpu[name] = Math.round((end - start) / calls);
  }
  return { result, cpu };
}
