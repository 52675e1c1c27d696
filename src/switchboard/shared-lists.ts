/**
 * Listing through the fleet's shared cache (fleet-seam.ts): a member that starts, or a server that
 * reconnects, takes a list another member kept while its version is current, instead of asking the
 * server cold. The member still keeps its own connection for calls; only the listing is shared.
 *
 * What may be shared follows the rules of the client's own cache (src/client/result-cache.ts), widened
 * from one connection to every process of the fleet: a list a page marked `cacheScope: "private"` is
 * never kept (it is one user's; per-principal lists stay in the process, principals.ts); a 2026-era
 * list is kept only when marked `public` with a `ttlMs`, and for no longer than that; a 2025-era list
 * only when the server declared `listChanged` for it (it will say when the copy goes stale), and then
 * until the version counter moves on.
 */
import type { McpClient } from "../client/client.js";
import { MAX_CACHE_TTL_MS, type CachedMethod } from "../client/result-cache.js";
import type { FleetListSync, SharedListKind } from "./fleet-seam.js";

const METHOD: Record<SharedListKind, CachedMethod> = { tools: "tools/list", resources: "resources/list", prompts: "prompts/list" };

/**
 * `fetch()`'s list, or the fleet's current copy of it without a round trip to the server; a fresh
 * listing is kept for the others as far as its server allows.
 */
export async function listShared<T>(sync: FleetListSync | undefined, kind: SharedListKind, client: McpClient, fetch: () => Promise<T[]>): Promise<T[]> {
  if (sync === undefined) return fetch();
  const kept = await sync.kept(kind);
  if (kept.items !== undefined) return kept.items as T[];
  const items = await fetch();
  if (kept.version !== undefined) {
    const ttlMs = sharedTtl(client, kind);
    sync.keep(kind, kept.version, ttlMs > 0 ? items : undefined, ttlMs);
  }
  return items;
}

/** How long `client`'s latest listing of `kind` may be served to the rest of the fleet, ms; 0: not at all. */
function sharedTtl(client: McpClient, kind: SharedListKind): number {
  const facts = client.listFacts(METHOD[kind]);
  if (facts?.cacheScope === "private" || facts?.ttlMs === 0) return 0;
  if (facts?.cacheScope === "public" && facts.ttlMs !== undefined) return Math.min(facts.ttlMs, MAX_CACHE_TTL_MS);
  if (client.era !== "legacy") return 0; // the 2026 era: no TTL, or no public grant, means do not reuse
  const capability = client.serverCapabilities?.[kind] as { listChanged?: unknown } | undefined;
  return capability?.listChanged === true ? MAX_CACHE_TTL_MS : 0;
}
