/**
 * The client's cache of list pages and resource reads, so a repeated `listTools()` costs no round trip.
 * One set of rules serves both protocol eras:
 *
 * - 2025 session era (results carry no TTL): a list page is kept while the server declared
 *   `listChanged` for its kind (tools, resources, prompts), because only then will the server say when
 *   it goes stale; it is dropped on that kind's `list_changed` notification.
 * - 2026 stateless era (results carry `ttlMs`): an entry is fresh while now < receivedAt + ttlMs, the
 *   TTL capped at 24 h; a TTL of 0, negative or absent means "do not reuse" (the era's default). The
 *   legacy rule above still applies in the legacy era whatever the TTL says.
 * - Results asking for more input (`resultType: "input_required"`) are never kept, nor the answers of
 *   MRTR retries (made from one caller's input responses; the dialect marks them).
 * - `list_changed` drops every page of that kind; `resources/updated {uri}` drops the read of that uri;
 *   leaving `ready` (reconnect, new session, close) drops everything.
 *
 * `cacheScope: "private"` results may be kept here because this cache belongs to one McpClient, that
 * is one connection and one auth context; nothing here is shared between clients. A request made with
 * a credential of its own (`RequestOptions.auth`: a principal's, on a 2026 connection shared by many
 * users) is another auth context: it is served only entries marked `public`, joins no request in
 * flight, and leaves behind only a result marked `public`.
 *
 * Identical requests made while one is in flight share it (one round trip, one answer), except for
 * callers that bring their own AbortSignal or progress callback: one caller's abort must not fail another.
 * A result that was in flight while its kind was invalidated is returned but not stored.
 */
import { isUncacheable, type Era, type Result } from "../connection/eras/dialect.js";

export type CachedKind = "tools" | "resources" | "prompts";

/** The longest a server-given TTL is honoured, ms: a typo of a few zeros must not pin a result for a year. */
export const MAX_CACHE_TTL_MS = 24 * 60 * 60 * 1000;

/** The methods whose results may be kept. */
export type CachedMethod = "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list" | "resources/read";

const KIND_OF_METHOD: Record<CachedMethod, CachedKind> = {
  "tools/list": "tools",
  "resources/list": "resources",
  "resources/templates/list": "resources",
  "prompts/list": "prompts",
  "resources/read": "resources",
};

/** What the cache needs to know of its client, read when a result arrives. */
export interface CacheFacts {
  era(): Era | undefined;
  serverCapabilities(): Record<string, unknown> | undefined;
}

export interface CacheLookup {
  /** Skip the cache and any shared in-flight request; the fresh result still refreshes the cache. */
  bypass: boolean;
  /** Whether this caller may share an in-flight request with others. */
  share: boolean;
  /** The request carries a credential other than the client's own: only `public` results cross over. */
  foreign?: boolean | undefined;
}

interface Entry {
  result: Result;
  /** ms since the epoch; Infinity: until invalidated. */
  expiresAt: number;
}

/** Whether a result may be used across auth contexts (SEP-2549 `cacheScope`). */
function isPublic(result: Result): boolean {
  return result.cacheScope === "public";
}

export class ResultCache {
  // Made on first use: a client whose server declares no listChanged (or no TTLs) never keeps an entry.
  private entries: Map<string, Entry> | undefined;
  private inflight: Map<string, Promise<Result>> | undefined;
  /** Bumped on every invalidation of a kind, so a result fetched before it is not stored after it. */
  private readonly generation: Record<CachedKind, number> = { tools: 0, resources: 0, prompts: 0 };

  /** @internal Every McpClient makes its own (`client.cache`). */
  constructor(private readonly facts: CacheFacts) {}

  /** @internal */
  static pageKey(method: string, cursor: string | undefined): string {
    return cursor === undefined ? method : `${method}\n${cursor}`;
  }

  /** @internal */
  static readKey(uri: string): string {
    return `resources/read\n${uri}`;
  }

  /** @internal The result for `key`: a fresh cached one, the request already in flight, or `fetch()`'s. */
  get(method: CachedMethod, key: string, fetch: () => Promise<Result>, lookup: CacheLookup): Promise<Result> {
    if (!lookup.bypass) {
      const entry = this.entries?.get(key);
      if (entry !== undefined && Date.now() >= entry.expiresAt) this.entries!.delete(key);
      else if (entry !== undefined && (lookup.foreign !== true || isPublic(entry.result))) return Promise.resolve(entry.result);
      const pending = this.inflight?.get(key);
      if (pending !== undefined && lookup.share && lookup.foreign !== true) return pending;
    }
    const kind = KIND_OF_METHOD[method];
    const generation = this.generation[kind];
    const fetched = fetch().then((result) => {
      if (this.generation[kind] === generation && (lookup.foreign !== true || isPublic(result))) this.store(method, key, result);
      return result;
    });
    if (lookup.share && !lookup.bypass && lookup.foreign !== true) {
      const inflight = (this.inflight ??= new Map());
      inflight.set(key, fetched);
      const forget = () => {
        if (inflight.get(key) === fetched) inflight.delete(key);
        if (inflight.size === 0 && this.inflight === inflight) this.inflight = undefined;
      };
      fetched.then(forget, forget);
    }
    return fetched;
  }

  /** Drops every page of a kind (its `list_changed` arrived). Reads stay: their content did not change. */
  dropKind(kind: CachedKind): void {
    this.generation[kind]++;
    const { entries, inflight } = this;
    if (entries !== undefined) {
      for (const key of entries.keys()) {
        const method = methodOfKey(key);
        if (method !== "resources/read" && kindOf(method) === kind) entries.delete(key);
      }
    }
    if (inflight !== undefined) for (const key of inflight.keys()) if (kindOf(methodOfKey(key)) === kind) inflight.delete(key);
  }

  /** Drops the cached read of one resource (`resources/updated` arrived for it). */
  dropRead(uri: string): void {
    this.generation.resources++;
    this.entries?.delete(ResultCache.readKey(uri));
    this.inflight?.delete(ResultCache.readKey(uri));
  }

  /** Drops everything (the connection left `ready`: a new session may see a different server). */
  clear(): void {
    for (const kind of Object.keys(this.generation) as CachedKind[]) this.generation[kind]++;
    this.entries = undefined;
    this.inflight = undefined;
  }

  /** Entries held now, fresh or not (for tests and status). */
  get size(): number {
    return this.entries?.size ?? 0;
  }

  private store(method: CachedMethod, key: string, result: Result): void {
    const expiresAt = this.expiry(method, result);
    if (expiresAt !== undefined) (this.entries ??= new Map()).set(key, { result, expiresAt });
  }

  /** When `result` goes stale, or undefined when it must not be kept at all. */
  private expiry(method: CachedMethod, result: Result): number | undefined {
    if (result.resultType === "input_required" || isUncacheable(result)) return undefined;
    const ttl = result.ttlMs;
    if (typeof ttl === "number" && ttl > 0) return Date.now() + Math.min(ttl, MAX_CACHE_TTL_MS);
    if (method !== "resources/read" && this.facts.era() === "legacy" && this.declaresListChanged(KIND_OF_METHOD[method])) return Infinity;
    return undefined;
  }

  private declaresListChanged(kind: CachedKind): boolean {
    const capability = this.facts.serverCapabilities()?.[kind] as { listChanged?: unknown } | undefined;
    return capability?.listChanged === true;
  }
}

/** A cache key is `method`, or `method` and a cursor or URI after a newline. */
function methodOfKey(key: string): string {
  const end = key.indexOf("\n");
  return end === -1 ? key : key.slice(0, end);
}

function kindOf(method: string): CachedKind | undefined {
  return (KIND_OF_METHOD as Partial<Record<string, CachedKind>>)[method];
}
