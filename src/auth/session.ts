/**
 * The authorization state of one MCP server, shared by every connection to it in this process that
 * uses the same token store: the current authorization server (issuer), what discovery found, the
 * stored credentials, the DPoP key, and the one flight (discovery, refresh, authorization) in
 * progress, so 64 requests refused at once cause one refresh, not 64.
 *
 * The per-request work is here too: while the token is fresh and not DPoP-bound, `headers()` hands out
 * one prepared object with no await, no allocation and no crypto.
 */
import type { DiscoveredServer } from "./discovery.js";
import { DpopKey } from "./dpop.js";
import { refreshAt, type StoredAuth, type StoredTokens, type TokenStore } from "./token-store.js";

const NO_HEADERS: Record<string, string> = Object.freeze({});

export class ServerSession {
  readonly origin: string;
  issuer: string | undefined;
  discovered: DiscoveredServer | undefined;
  auth: StoredAuth | undefined;
  dpop: DpopKey | undefined;
  /** Step-ups since the last authorization a 401 caused: bounded against a server that never is satisfied. */
  stepUps = 0;
  /** The `WWW-Authenticate` scheme the server challenged with last (`bearer` or `dpop`). */
  challengeScheme: string | undefined;
  private flight: Promise<void> | undefined;
  private loading: Promise<void> | undefined;
  private isLoaded = false;
  private prepared: Record<string, string> | undefined;
  private refreshAt = Infinity;

  constructor(
    /** The canonical server URI: the key in the store. */
    readonly server: string,
    readonly store: TokenStore,
  ) {
    this.origin = new URL(server).origin;
  }

  get tokens(): StoredTokens | undefined {
    return this.auth?.tokens;
  }

  /** Loads what the store holds for the most recently used issuer (once). */
  load(): Promise<void> {
    this.loading ??= (async () => {
      const issuers = await this.store.issuers(this.server);
      const latest = issuers[0];
      if (latest !== undefined && this.issuer === undefined) await this.useIssuer(latest);
      this.isLoaded = true;
    })();
    this.loading.catch(() => {
      this.loading = undefined; // an unreadable store is tried again by the next request
    });
    return this.loading;
  }

  /** Switches to an issuer's credentials (SEP-2352: credentials never cross authorization servers). */
  async useIssuer(issuer: string): Promise<void> {
    if (this.issuer === issuer && this.auth !== undefined) return;
    const auth = await this.store.get(this.server, issuer);
    this.issuer = issuer;
    await this.adopt(auth);
  }

  /** Takes `auth` (fresh from the store) as the current credentials. */
  async adopt(auth: StoredAuth | undefined): Promise<void> {
    this.auth = auth;
    this.dpop = auth?.dpopKey !== undefined ? await DpopKey.fromJwk(auth.dpopKey) : undefined;
    this.prepare();
  }

  /** The Authorization header value requests carry now. */
  authorization(): string | undefined {
    const tokens = this.tokens;
    if (tokens === undefined) return undefined;
    return `${tokens.tokenType === "dpop" ? "DPoP" : "Bearer"} ${tokens.accessToken}`;
  }

  private prepare(): void {
    const tokens = this.tokens;
    this.prepared = undefined;
    this.refreshAt = Infinity;
    if (tokens === undefined) return;
    if (tokens.tokenType !== "dpop") this.prepared = Object.freeze({ authorization: this.authorization()! });
    if (tokens.expiresAt !== undefined && tokens.refreshToken !== undefined) this.refreshAt = refreshAt(tokens);
  }

  /** The prepared headers when no work is needed (fresh bearer token, or no token at all); else undefined. */
  readyHeaders(): Record<string, string> | undefined {
    if (!this.isLoaded || this.flight !== undefined) return undefined;
    if (this.tokens === undefined) return NO_HEADERS;
    if (this.prepared === undefined || Date.now() >= this.refreshAt) return undefined;
    return this.prepared;
  }

  needsRefresh(): boolean {
    return this.tokens?.refreshToken !== undefined && Date.now() >= this.refreshAt;
  }

  async headersFor(method: string, url: URL): Promise<Record<string, string>> {
    const tokens = this.tokens;
    if (tokens === undefined) return NO_HEADERS;
    if (tokens.tokenType !== "dpop" || this.dpop === undefined) return this.prepared ?? { authorization: this.authorization()! };
    return { authorization: `DPoP ${tokens.accessToken}`, dpop: await this.dpop.proof(method, url, tokens.accessToken) };
  }

  /** Runs `work` unless a flight is already on; either way resolves (or rejects) with the flight. */
  run(work: () => Promise<void>): Promise<void> {
    if (this.flight !== undefined) return this.flight;
    const flight = work().finally(() => {
      if (this.flight === flight) this.flight = undefined;
    });
    this.flight = flight;
    return flight;
  }

  /** The flight in progress, if any. */
  inFlight(): Promise<void> | undefined {
    return this.flight;
  }

  /** Writes through the store (exclusively) and takes the result as current. */
  async update(change: (current: StoredAuth | undefined) => StoredAuth | undefined | Promise<StoredAuth | undefined>): Promise<StoredAuth | undefined> {
    const issuer = this.issuer;
    if (issuer === undefined) throw new Error("no authorization server chosen yet");
    const written = await this.store.update(this.server, issuer, change);
    if (this.issuer === issuer) await this.adopt(written);
    return written;
  }

  /** Forgets everything in memory (after logout). */
  reset(): void {
    this.issuer = undefined;
    this.discovered = undefined;
    this.auth = undefined;
    this.dpop = undefined;
    this.loading = undefined;
    this.isLoaded = false;
    this.stepUps = 0;
    this.prepare();
  }
}

const registry = new Map<string, ServerSession>();
const storeIds = new WeakMap<TokenStore, string>();
let anonymousStores = 0;

/** The session of `server` for `store`: one per (store, server) in the process. */
export function sessionFor(store: TokenStore, server: string): ServerSession {
  let storeId = store.id ?? storeIds.get(store);
  if (storeId === undefined) {
    storeId = `store:${++anonymousStores}`;
    storeIds.set(store, storeId);
  }
  const key = `${storeId}\n${server}`;
  let session = registry.get(key);
  if (session === undefined) {
    session = new ServerSession(server, store);
    registry.set(key, session);
  }
  return session;
}
