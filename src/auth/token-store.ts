/**
 * Where OAuth credentials live between requests and between processes: per MCP server and per
 * authorization server (issuer), because credentials from one authorization server are never offered
 * to another. What is kept: the tokens, the client registration, the DPoP key the tokens are bound
 * to, and the scope last asked for (so a step-up keeps what was granted).
 *
 * `update` is the only write: a read-modify-write that the store runs exclusively for that entry
 * (in this process for the memory store, across processes for the file store), so a refresh done
 * inside it happens once even when two processes need it at the same moment.
 */
import type { JWK } from "jose";

export interface StoredTokens {
  accessToken: string;
  /** `bearer` or `dpop` (lower case). */
  tokenType: string;
  refreshToken?: string;
  /** When the access token expires (ms since the epoch); absent when the server did not say. */
  expiresAt?: number;
  /** The scope granted (or asked for, when the server did not say). */
  scope?: string;
  /** When these tokens were obtained (ms since the epoch). */
  obtainedAt: number;
}

export interface StoredClient {
  clientId: string;
  clientSecret?: string;
  /** `dynamic`: registered here (RFC 7591); `metadata-document`: the client ID is a metadata URL. */
  source: "dynamic" | "metadata-document";
  tokenEndpointAuthMethod?: string | undefined;
  redirectUris?: string[];
  /** When the secret expires (ms since the epoch); the client is registered again after that. */
  secretExpiresAt?: number;
}

export interface StoredAuth {
  tokens?: StoredTokens | undefined;
  client?: StoredClient | undefined;
  /** The private DPoP key (JWK) the tokens are bound to. */
  dpopKey?: JWK;
  /** The scope the latest authorization asked for: a step-up asks for it plus what is challenged. */
  scope?: string;
  /** ms since the epoch. */
  updatedAt: number;
}

export type StoreChange = (current: StoredAuth | undefined) => StoredAuth | undefined | Promise<StoredAuth | undefined>;

export interface TokenStore {
  /** Stores with the same id hold the same data (the file store's id is its path). */
  readonly id?: string;
  get(server: string, issuer: string): Promise<StoredAuth | undefined>;
  /** Exclusive read-modify-write of one entry; `undefined` from `change` deletes it. Resolves with what was written. */
  update(server: string, issuer: string, change: StoreChange): Promise<StoredAuth | undefined>;
  /** Forgets one issuer's entry for the server, or every entry of the server. */
  delete(server: string, issuer?: string): Promise<void>;
  /** The issuers with an entry for the server, the most recently updated first. */
  issuers(server: string): Promise<string[]>;
}

/**
 * When tokens are due for a refresh: ahead of expiry by a tenth of their lifetime, at most 30 s. A
 * margin relative to the lifetime, because a fixed one (it was 5 s) makes a token that lives less
 * than the margin count as expired the moment it arrives, and every process refreshes it on every call.
 */
export function refreshAt(tokens: StoredTokens): number {
  if (tokens.expiresAt === undefined) return Infinity;
  const lifetime = Math.max(0, tokens.expiresAt - tokens.obtainedAt);
  return tokens.expiresAt - Math.min(30_000, lifetime / 10);
}

export function refreshDue(tokens: StoredTokens, now: number): boolean {
  return now >= refreshAt(tokens);
}

/** The entries of one store file / memory map: server → issuer → credentials. */
export type StoreData = Record<string, Record<string, StoredAuth>>;

/** Issuers of a server's entries, the most recently updated first. */
export function issuersOf(data: StoreData, server: string): string[] {
  const entries = data[server];
  if (entries === undefined) return [];
  return Object.keys(entries).sort((a, b) => (entries[b]?.updatedAt ?? 0) - (entries[a]?.updatedAt ?? 0));
}

/** Applies `change` to one entry of `data` (in place) and returns the new value. */
export async function applyChange(data: StoreData, server: string, issuer: string, change: StoreChange): Promise<StoredAuth | undefined> {
  const current = data[server]?.[issuer];
  const next = await change(current === undefined ? undefined : structuredClone(current));
  if (next === undefined) {
    if (data[server] !== undefined) {
      delete data[server][issuer];
      if (Object.keys(data[server]).length === 0) delete data[server];
    }
    return undefined;
  }
  const stored = structuredClone({ ...next, updatedAt: Date.now() });
  (data[server] ??= Object.create(null) as Record<string, StoredAuth>)[issuer] = stored;
  return structuredClone(stored);
}

let memoryStores = 0;

/** Credentials in this process's memory: gone when it exits. Updates of one entry run one at a time. */
export function memoryTokenStore(): TokenStore {
  const data: StoreData = Object.create(null) as StoreData;
  const chains = new Map<string, Promise<unknown>>();
  const id = `memory:${++memoryStores}`;
  return {
    id,
    async get(server, issuer) {
      const value = data[server]?.[issuer];
      return value === undefined ? undefined : structuredClone(value);
    },
    update(server, issuer, change) {
      const key = `${server}\n${issuer}`;
      const previous = chains.get(key) ?? Promise.resolve();
      const run = previous.then(() => applyChange(data, server, issuer, change));
      const settled = run.catch(() => undefined);
      chains.set(key, settled);
      void settled.then(() => {
        if (chains.get(key) === settled) chains.delete(key);
      });
      return run;
    },
    async delete(server, issuer) {
      if (issuer === undefined) delete data[server];
      else await applyChange(data, server, issuer, () => undefined);
    },
    async issuers(server) {
      return issuersOf(data, server);
    },
  };
}

/** The store `oauth()` uses when given none: one per process, so every connection shares its tokens. */
export const processTokenStore: TokenStore = memoryTokenStore();
