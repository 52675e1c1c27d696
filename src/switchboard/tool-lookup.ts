/**
 * Finding a tool's annotations at the moment a failed call needs them. The board lists every server's
 * tools when it comes up, so this is nearly always an in-memory find; it waits only when no list that
 * names the tool has arrived yet (the primary died before its first listing finished, say), and then
 * no longer than the call had left.
 */
import type { Tool } from "../client/types.js";
import { sleep } from "../util/timers.js";
import type { ServerRuntime } from "./server-runtime.js";

/**
 * The tool named `name` as `servers` describe it, in order: first from the lists already known, then
 * from listings (shared with any under way; a server that is away answers with its kept list at once),
 * all within `withinMs`. Fallbacks serve the same tools, so a fallback's list speaks for the primary's
 * tool when the primary's own never arrived. Undefined when none knows it in time.
 */
export async function lookUpTool(name: string, servers: readonly ServerRuntime[], withinMs: number): Promise<Tool | undefined> {
  const candidates = [...new Set(servers)];
  for (const server of candidates) {
    const tool = server.tools.find(name);
    if (tool !== undefined) return tool;
  }
  const deadline = Date.now() + withinMs;
  for (const server of candidates) {
    const list = await within(server.tools.refresh(), deadline - Date.now());
    const tool = list?.find((t) => t.name === name);
    if (tool !== undefined) return tool;
    if (Date.now() >= deadline) return undefined;
  }
  return undefined;
}

/** `promise`'s value, or undefined once `ms` have passed; the timer is cleared either way. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  if (ms <= 0) return undefined;
  const timer = new AbortController();
  try {
    return await Promise.race([promise, sleep(ms, timer.signal).then(() => undefined)]);
  } finally {
    timer.abort();
  }
}
