/**
 * The era belongs to the server, not to one connection: once a server (a stdio command line, an HTTP
 * origin and path) has been probed, later connections to it — a supervisor's restarts above all — skip
 * the probe. Kept for the life of the process; an entry is dropped when it stops working.
 *
 * A 2025 verdict is only an era. A 2026 verdict also carries the server's facts (the DiscoverResult:
 * capabilities, instructions, identity), which are reused only while its `ttlMs` says they are fresh
 * (SEP-2549; 0 or absent: never, at most 24 hours); after that the next connection asks
 * `server/discover` again, so a server that gained a capability is not refused locally.
 */
import type { PriorVerdict, Result } from "./dialect.js";

const MAX_TTL_MS = 24 * 60 * 60 * 1000;
/** Distinct servers one process remembers; the oldest is forgotten first. */
const MAX_ENTRIES = 1000;

interface Entry {
  verdict: PriorVerdict;
  at: number;
}

const verdicts = new Map<string, Entry>();

export function cachedVerdict(identity: string | undefined, now = Date.now()): PriorVerdict | undefined {
  if (identity === undefined) return undefined;
  const entry = verdicts.get(identity);
  if (entry === undefined) return undefined;
  if (entry.verdict.kind === "modern" && now >= entry.at + freshFor(entry.verdict.discover)) return undefined;
  return entry.verdict;
}

export function rememberVerdict(identity: string | undefined, verdict: PriorVerdict, now = Date.now()): void {
  if (identity === undefined) return;
  verdicts.delete(identity); // re-inserted last: the Map's order is the age order
  verdicts.set(identity, { verdict, at: now });
  if (verdicts.size > MAX_ENTRIES) verdicts.delete(verdicts.keys().next().value!);
}

/** The server changed (upgraded, downgraded, replaced): the next connection probes again. */
export function forgetVerdict(identity: string | undefined): void {
  if (identity !== undefined) verdicts.delete(identity);
}

function freshFor(discover: Result): number {
  const ttl = discover.ttlMs;
  return typeof ttl === "number" && Number.isFinite(ttl) && ttl > 0 ? Math.min(ttl, MAX_TTL_MS) : 0;
}
