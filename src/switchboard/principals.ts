/**
 * Principals: one board serving many users, each call made with its user's credentials: the entry's
 * `principalHeaders(principal)` (asked for each request, so tokens may rotate), or, with an OAuth
 * provider, the provider's options over a token store partitioned by principal.
 *
 * A 2026-07-28 server over Streamable HTTP has no session: the principal's requests go over the
 * board's own connection, each with the principal's credential (RequestOptions.auth), and lists the
 * server marks private are kept out of the shared cache (client/result-cache.ts). A 2025-era server
 * ties a session to one credential: there a principal gets its own client, kept per server up to
 * `maxPrincipals` (least recently used one closed beyond it) and closed after `idleMs` without a
 * call, by one sweep timer per board. When the board's own connection is not up (its own credential
 * missing or refused), a principal with credentials of its own still gets through on its own client.
 * A stdio (or code transport) server has one process for everybody: a principal call to it is a
 * ConfigError unless its entry says `shared: true`.
 */
import { createClient } from "../client/connect.js";
import type { McpClient } from "../client/client.js";
import type { CallToolResult, Tool } from "../client/types.js";
import { OAuthProvider } from "../auth/oauth.js";
import type { TokenStore } from "../auth/token-store.js";
import { UrlPolicy } from "../auth/url-policy.js";
import { ConfigError, TransportError } from "../jsonrpc/errors.js";
import type { AuthOption } from "../transports/auth.js";
import type { ConnectTarget } from "./config-types.js";
import { targetOf } from "./config.js";
import type { BoardCallOptions } from "./board-options.js";
import type { ServerRuntime } from "./server-runtime.js";

/** Headers for one principal's requests to a server (code only): its own token, say. */
export type PrincipalHeaders = (principal: string) => Record<string, string> | Promise<Record<string, string>>;

export interface PrincipalSettings {
  /** Clients kept per server, one per principal (default 256); the least recently used is closed beyond it. */
  maxPrincipals?: number | undefined;
  /** A principal's client is closed after this long without a call (default 300000 ms). */
  idleMs?: number | undefined;
}

interface Kept {
  client: McpClient;
  started: Promise<McpClient>;
  lastUsed: number;
}

export function checkPrincipal(principal: unknown): string {
  if (typeof principal !== "string" || principal === "")
    throw new ConfigError(`expected a non-empty string, found ${JSON.stringify(principal)}`, { field: "principal" });
  return principal;
}

/** A token store whose entries for a server are one principal's own: the same store, another key. */
export function principalStore(store: TokenStore, principal: string): TokenStore {
  const key = (server: string) => `${server}#principal=${encodeURIComponent(principal)}`;
  return {
    // Another id: stores with one id share their sessions (src/auth/session.ts), and so their tokens.
    ...(store.id !== undefined ? { id: `${store.id}#principal=${encodeURIComponent(principal)}` } : {}),
    get: (server, issuer) => store.get(key(server), issuer),
    update: (server, issuer, change) => store.update(key(server), issuer, change),
    delete: (server, issuer) => store.delete(key(server), issuer),
    issuers: (server) => store.issuers(key(server)),
  };
}

export class PrincipalClients {
  private readonly kept = new Map<ServerRuntime, Map<string, Kept>>();
  private readonly providers = new WeakMap<object, Map<string, OAuthProvider>>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly maxPrincipals: number;
  private readonly idleMs: number;

  constructor(settings: PrincipalSettings = {}) {
    this.maxPrincipals = settings.maxPrincipals ?? 256;
    this.idleMs = settings.idleMs ?? 300_000;
    if (!(Number.isInteger(this.maxPrincipals) && this.maxPrincipals >= 1)) {
      throw new ConfigError(`expected a whole number >= 1, found ${String(settings.maxPrincipals)}`, { field: "principals.maxPrincipals" });
    }
    if (!(Number.isFinite(this.idleMs) && this.idleMs > 0))
      throw new ConfigError(`expected ms > 0, found ${String(settings.idleMs)}`, { field: "principals.idleMs" });
  }

  /** How the router sends one tool call: on the server's client, or, for a principal, on the principal's own. */
  sender(
    tool: string,
    args: Record<string, unknown> | undefined,
    options: BoardCallOptions,
  ): (client: McpClient, server: ServerRuntime) => Promise<CallToolResult> {
    const principal = options.principal;
    if (principal === undefined) return (client) => client.callTool(tool, args, options);
    checkPrincipal(principal);
    return (client, server) => this.call(server, client, principal, tool, args, options);
  }

  /**
   * Calls `tool` on `runtime` as `principal`: on the server's own client `shared` with the principal's
   * credential per request (2026 era), on it as it is (`shared: true` servers), or on the principal's own.
   */
  async call(
    runtime: ServerRuntime,
    shared: McpClient | undefined,
    principal: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    options: BoardCallOptions,
  ): Promise<CallToolResult> {
    try {
      if (this.sharesConnection(runtime, shared)) return await shared.callTool(tool, args, this.withCredential(runtime, principal, options));
      return await (await this.clientFor(runtime, shared, principal)).callTool(tool, args, options);
    } catch (error) {
      // One principal's refused credential says nothing of the server's health: not retryable, so the
      // server's circuit, shared by every principal, does not count it as a failure.
      if (error instanceof TransportError && (error.status === 401 || error.status === 403)) error.retryable = false;
      throw error;
    }
  }

  /** The principal's view of a server's tools: its own listing (private lists stay its own). */
  async listTools(runtime: ServerRuntime, shared: McpClient | undefined, principal: string): Promise<Tool[]> {
    if (this.sharesConnection(runtime, shared)) return shared.listTools(this.withCredential(runtime, principal, {}));
    const client = await this.clientFor(runtime, shared, principal);
    return client === shared ? ((await runtime.tools.refresh()) ?? []) : client.listTools();
  }

  /**
   * Whether a principal's call may go without the board's own connection (RouteOptions.standalone):
   * the server is remote, its entry gives principals credentials of their own, and the board's own
   * client is down or restarting (its own credential missing or refused, say).
   */
  readonly standalone = (runtime: ServerRuntime): boolean => (runtime.state === "down" || runtime.state === "restarting") && this.ownCredentials(runtime);

  private ownCredentials(runtime: ServerRuntime): boolean {
    const entry = runtime.entry;
    if (entry.type === "stdio" || entry.transport !== undefined) return false;
    return entry.principalHeaders !== undefined || boardOAuth(entry) !== undefined;
  }

  /** The board's own client is up on a 2026-era Streamable HTTP connection: no session to keep apart, one pool for all. */
  private sharesConnection(runtime: ServerRuntime, shared: McpClient | undefined): shared is McpClient {
    return runtime.state === "up" && shared !== undefined && shared.era === "modern" && shared.connection.transport.kind === "streamable-http";
  }

  /** `options` with the principal's credential for one request on the shared connection (unchanged when the entry gives none). */
  private withCredential<T extends object>(runtime: ServerRuntime, principal: string, options: T): T {
    const auth = this.credentialOf(runtime, principal);
    return auth === undefined ? options : { ...options, auth };
  }

  private credentialOf(runtime: ServerRuntime, principal: string): AuthOption | undefined {
    const entry = runtime.entry;
    if (entry.type === "stdio") return undefined;
    const headersOf = entry.principalHeaders;
    if (headersOf !== undefined) return () => headersOf(principal);
    const provider = boardOAuth(entry);
    return provider === undefined ? undefined : this.providerFor(provider, principal, runtime);
  }

  /** Whether a principal may use `runtime`: a remote server, or one whose entry says `shared: true`. */
  serves(runtime: ServerRuntime): boolean {
    return !(runtime.entry.type === "stdio" || runtime.entry.transport !== undefined) || runtime.entry.shared === true;
  }

  /** How many principal clients are open for `runtime` (for tests and status). */
  count(runtime: ServerRuntime): number {
    return this.kept.get(runtime)?.size ?? 0;
  }

  private async clientFor(runtime: ServerRuntime, shared: McpClient | undefined, principal: string): Promise<McpClient> {
    const entry = runtime.entry;
    if (entry.type === "stdio" || entry.transport !== undefined) {
      if (this.serves(runtime)) return shared ?? Promise.reject(runtime.unavailable());
      throw new ConfigError(
        `a principal's call to a server without URL has no credentials of its own; set "shared": true if every principal may use its one process`,
        {
          server: runtime.name,
          field: "shared",
        },
      );
    }
    let byPrincipal = this.kept.get(runtime);
    if (byPrincipal === undefined) this.kept.set(runtime, (byPrincipal = new Map<string, Kept>()));
    let kept = byPrincipal.get(principal);
    if (kept === undefined) {
      const client = createClient(this.targetFor(runtime, principal), runtime.baseOptions);
      kept = { client, started: client.start().then(() => client), lastUsed: Date.now() };
      byPrincipal.set(principal, kept);
      kept.started.catch(() => byPrincipal.get(principal) === kept && byPrincipal.delete(principal));
      this.evict(byPrincipal);
      this.sweeper ??= setInterval(() => this.sweep(), Math.max(10, this.idleMs / 2)).unref();
    } else {
      byPrincipal.delete(principal);
      byPrincipal.set(principal, kept); // Map order is use order: the first entry is the least recently used
    }
    kept.lastUsed = Date.now();
    return kept.started;
  }

  private targetFor(runtime: ServerRuntime, principal: string): ConnectTarget {
    const entry = runtime.entry;
    const target = targetOf(entry);
    if (entry.type === "stdio" || !("url" in target)) return target;
    const auth = this.credentialOf(runtime, principal);
    return auth === undefined ? target : { ...target, auth };
  }

  /** The principal's OAuth provider: the board's settings over its partition of the store; the least recently used go beyond `maxPrincipals`. */
  private providerFor(shared: OAuthProvider, principal: string, runtime: ServerRuntime): OAuthProvider {
    let byPrincipal = this.providers.get(shared);
    if (byPrincipal === undefined) this.providers.set(shared, (byPrincipal = new Map<string, OAuthProvider>()));
    let provider = byPrincipal.get(principal);
    if (provider === undefined) {
      provider = new OAuthProvider({ ...shared.options, store: principalStore(shared.store, principal) });
      // On a shared connection no transport is made for it, which is where a provider learns the URL policy.
      const policy = runtime.baseOptions.urlPolicy;
      if (policy instanceof UrlPolicy) provider.useUrlPolicy(policy);
      while (byPrincipal.size >= this.maxPrincipals) byPrincipal.delete(byPrincipal.keys().next().value as string);
    } else byPrincipal.delete(principal);
    byPrincipal.set(principal, provider);
    return provider;
  }

  private evict(byPrincipal: Map<string, Kept>): void {
    while (byPrincipal.size > this.maxPrincipals) {
      const [oldest, kept] = byPrincipal.entries().next().value as [string, Kept];
      byPrincipal.delete(oldest);
      void kept.client.close().catch(() => {});
    }
  }

  private sweep(): void {
    const before = Date.now() - this.idleMs;
    for (const byPrincipal of this.kept.values()) {
      for (const [principal, kept] of byPrincipal) {
        if (kept.lastUsed > before || kept.client.connection.stats().pending > 0) continue;
        byPrincipal.delete(principal);
        void kept.client.close().catch(() => {});
      }
    }
    if ([...this.kept.values()].every((map) => map.size === 0)) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    const closing = [...this.kept.values()].flatMap((map) => [...map.values()].map((kept) => kept.client.close().catch(() => {})));
    this.kept.clear();
    await Promise.all(closing);
  }
}

/** The entry's own OAuth provider (code `auth: oauth(...)`, or made once from mcp.json's "oauth"), if any. */
function boardOAuth(entry: ServerRuntime["entry"]): OAuthProvider | undefined {
  const target = targetOf(entry);
  return "url" in target && target.auth instanceof OAuthProvider ? target.auth : undefined;
}
