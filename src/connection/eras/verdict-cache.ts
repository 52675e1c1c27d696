/**
 * The era belongs to the server, not to one connection: once a server (a stdio command line, an HTTP
 * origin and path) has been probed, later connections to it — a supervisor's restarts above all — skip
 * the probe. Kept for the life of the process; an entry is dropped when it stops working.
 */
import type { PriorVerdict } from "./dialect.js";

const verdicts = new Map<string, PriorVerdict>();

export function cachedVerdict(identity: string | undefined): PriorVerdict | undefined {
  return identity === undefined ? undefined : verdicts.get(identity);
}

export function rememberVerdict(identity: string | undefined, verdict: PriorVerdict): void {
  if (identity !== undefined) verdicts.set(identity, verdict);
}

/** The server changed (upgraded, downgraded, replaced): the next connection probes again. */
export function forgetVerdict(identity: string | undefined): void {
  if (identity !== undefined) verdicts.delete(identity);
}
