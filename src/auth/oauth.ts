/**
 * `oauth(options)`: the authorization provider for URL targets and Switchboard entries.
 *
 * - `headers()`: the stored token (and a DPoP proof when the token is bound), refreshed shortly before
 *   it expires; nothing for a request to another origin.
 * - `handleChallenge()`: on 401, discovery and then a refresh or a new grant; on 403
 *   `insufficient_scope`, a step-up that asks for what was asked before plus what is challenged, when
 *   that is more than the token has (else it would never end); on a DPoP `use_dpop_nonce`, the nonce.
 *   One flight per server at a time, shared by every request that meets the refusal.
 * - `finishAuthorization(callback)`: ends an authorization that an `AuthRequiredError` left pending.
 * - `logout(server)`: forgets (and, where the server offers RFC 7009, revokes) the server's credentials.
 */
import { canonicalServerUri, discoverAuthorizationServer } from "./discovery.js";
import { AuthorizationError } from "./errors.js";
import { describeFetchError, type HttpSettings } from "./http.js";
import { completeCode, discover, obtainTokens, refresh, type Flow, type PendingCode } from "./flows.js";
import { revokeToken } from "./grants.js";
import { resolveClient } from "./client-identity.js";
import type { OAuthEvent, OAuthOptions } from "./options.js";
import type { AuthChallenge, AuthProvider, AuthRequest, ChallengeVerdict } from "./provider.js";
import { addsScope, unionScopes, withOfflineAccess } from "./scopes.js";
import { sessionFor, type ServerSession } from "./session.js";
import { processTokenStore, type TokenStore } from "./token-store.js";
import { oauthChallenge, parseWwwAuthenticate } from "./www-authenticate.js";
import { guardFetch, type UrlPolicy } from "./url-policy.js";

export type { OAuthOptions, OAuthEvent } from "./options.js";

const NO_HEADERS: Record<string, string> = Object.freeze({});

export class OAuthProvider implements AuthProvider {
  readonly store: TokenStore;
  private readonly flow: Flow;
  private readonly sessions = new WeakMap<URL, ServerSession>();
  private urlPolicy: UrlPolicy | undefined;
  /** The origins of the MCP servers this provider serves: what the user configured. */
  private readonly serverOrigins = new Set<string>();

  useUrlPolicy(policy: UrlPolicy): void {
    this.urlPolicy = policy;
  }

  constructor(readonly options: OAuthOptions = {}) {
    this.store = options.store ?? processTokenStore;
    const onEvent = options.onEvent;
    this.flow = {
      options,
      http: {
        fetch: guardFetch(
          options.fetch,
          () => this.urlPolicy,
          (url) => this.serverOrigins.has(url.origin),
        ),
        timeoutMs: options.timeoutMs,
        allowInsecureHttp: options.allowInsecureHttp,
      },
      client: {
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        privateKey: options.privateKey,
        signingAlgorithm: options.signingAlgorithm,
        clientMetadataUrl: options.clientMetadataUrl,
        clientName: options.clientName ?? "mcp-switchboard",
        applicationType: options.applicationType,
        tokenEndpointAuthMethod: options.tokenEndpointAuthMethod,
        clientMetadata: options.clientMetadata,
      },
      emit: (event: OAuthEvent) => {
        try {
          onEvent?.(event);
        } catch {
          // A listener's failure must not break authorization.
        }
      },
      pending: new Map<string, PendingCode>(),
    };
    if (options.clientMetadataUrl !== undefined) checkMetadataUrl(options.clientMetadataUrl);
  }

  headers(request: AuthRequest): Record<string, string> | Promise<Record<string, string>> {
    const session = this.session(request.server);
    if (request.url !== request.server && originOf(request.url) !== session.origin) return NO_HEADERS; // tokens never leave the server's origin
    return session.readyHeaders() ?? this.slowHeaders(session, request);
  }

  private async slowHeaders(session: ServerSession, request: AuthRequest): Promise<Record<string, string>> {
    await session.load();
    // A refresh or authorization under way will give this request a token too: wait for it.
    await session.inFlight()?.catch(() => {});
    if (session.needsRefresh()) {
      // Ahead of expiry; if it fails, the current token is sent and a 401 takes the usual path.
      await session.run(() => refresh(this.flow, session, request.server, undefined).then(() => {})).catch(() => {});
    }
    return session.headersFor(request.method, request.url);
  }

  async handleChallenge(challenge: AuthChallenge): Promise<ChallengeVerdict> {
    const session = this.session(challenge.server);
    if (challenge.url !== challenge.server && originOf(challenge.url) !== session.origin) return "fail";
    await session.load();
    const parsed = oauthChallenge(parseWwwAuthenticate(challenge.wwwAuthenticate));
    const params = parsed?.params ?? {};
    if (parsed !== undefined) session.challengeScheme = parsed.scheme;
    if (params.error === "use_dpop_nonce") {
      if (challenge.dpopNonce === undefined || session.dpop === undefined) return "fail";
      session.dpop.rememberNonce(challenge.url, challenge.dpopNonce);
      this.flow.emit({ type: "dpop-nonce", server: session.server, origin: challenge.url.origin });
      return "retry";
    }
    const flight = session.inFlight();
    if (flight !== undefined) {
      await flight;
      return "retry";
    }
    // The token changed since this request left (another request refreshed it): just send it again.
    const current = session.authorization();
    if (current !== undefined && challenge.authorization !== current) return "retry";
    if (challenge.status === 403) return this.stepUp(session, challenge, params.error, params.scope);
    await session.run(async () => {
      const found = await discover(this.flow, session, challenge.server, params.resource_metadata);
      session.stepUps = 0;
      const asked = params.scope ?? found.resourceMetadata?.scopes_supported?.join(" ") ?? this.options.scope;
      // SEP-2350: a new authorization keeps what this issuer was asked for before.
      let scope = unionScopes(session.auth?.scope, asked);
      if (!this.machineToMachine()) scope = withOfflineAccess(scope, found.metadata.scopes_supported);
      await obtainTokens(this.flow, session, challenge.server, scope, session.tokens?.accessToken, false);
    });
    return "retry";
  }

  private async stepUp(session: ServerSession, challenge: AuthChallenge, error: string | undefined, challenged: string | undefined): Promise<ChallengeVerdict> {
    if (error !== "insufficient_scope" || session.tokens === undefined) return "fail";
    const wanted = unionScopes(session.auth?.scope, session.tokens.scope, challenged);
    // Asking again for what the token already has would loop forever: the server will not be satisfied.
    if (!addsScope(wanted, session.tokens.scope ?? session.auth?.scope)) return "fail";
    if (session.stepUps >= (this.options.maxStepUps ?? 2)) return "fail";
    session.stepUps++;
    await session.run(async () => {
      const found = session.discovered ?? (await discover(this.flow, session, challenge.server, undefined));
      this.flow.emit({ type: "step-up", server: session.server, issuer: found.issuer, scope: wanted });
      // A refresh cannot widen a grant (RFC 6749 §6): a new authorization it is.
      await obtainTokens(this.flow, session, challenge.server, wanted, undefined, true);
    });
    return "retry";
  }

  /**
   * Authorizes ahead of any connection (what `mcp-switchboard login` does), so a person's time in the
   * browser is not spent under a request's deadline: asks the server unauthenticated, and acts on its
   * challenge. "already": credentials are stored (`force` drops them first); "not-required": the
   * server did not ask for authorization.
   */
  async authorize(server: string | URL, options: { force?: boolean } = {}): Promise<"authorized" | "already" | "not-required"> {
    const url = new URL(server);
    if (options.force) await this.logout(url);
    const session = this.session(url);
    await session.load();
    if (session.tokens !== undefined) return "already";
    const challenge = await probe(url, this.flow.http);
    if (challenge === undefined) return "not-required";
    await this.handleChallenge({ server: url, url, method: "POST", ...challenge });
    return session.tokens === undefined ? "not-required" : "authorized";
  }

  /**
   * Ends an authorization left pending by an `AuthRequiredError`: pass the URL the browser was sent
   * back to (or its query). Its `state` must match, and it can be used once. Then reconnect.
   */
  async finishAuthorization(callback: string | URL | URLSearchParams): Promise<void> {
    const params = callbackParams(callback);
    const state = params.get("state");
    const code = state === null ? undefined : this.flow.pending.get(state);
    if (code === undefined) {
      throw new AuthorizationError(
        state === null
          ? "The callback has no state parameter; pass the whole URL the browser was sent back to"
          : "No authorization with this state is pending here (finished already, from another process, or forged); authorize again",
      );
    }
    await completeCode(this.flow, code, params);
  }

  /** Forgets the server's credentials (every issuer), revoking them first where the server supports RFC 7009. */
  async logout(server: string | URL): Promise<void> {
    const url = new URL(server);
    const session = this.session(url);
    for (const issuer of await this.store.issuers(session.server)) {
      const stored = await this.store.get(session.server, issuer);
      await this.revoke(issuer, stored?.client, stored?.tokens).catch(() => {});
    }
    await this.store.delete(session.server);
    session.reset();
  }

  private async revoke(
    issuer: string,
    client: Parameters<typeof resolveClient>[2],
    tokens: { accessToken: string; refreshToken?: string } | undefined,
  ): Promise<void> {
    if (tokens === undefined) return;
    const metadata = await discoverAuthorizationServer(issuer, { ...this.flow.http, timeoutMs: Math.min(this.flow.http.timeoutMs ?? 5_000, 5_000) });
    if (metadata?.revocation_endpoint === undefined || (client === undefined && this.options.clientId === undefined)) return;
    const identity = await resolveClient(this.flow.client, metadata, client, { grantTypes: [] }, this.flow.http);
    const context = { as: metadata, client: identity.client, clientAuth: identity.auth, resource: "", http: this.flow.http };
    if (tokens.refreshToken !== undefined) await revokeToken(context, tokens.refreshToken, "refresh_token");
    await revokeToken(context, tokens.accessToken, "access_token");
  }

  private machineToMachine(): boolean {
    return this.options.grant === "client_credentials" || this.options.assertion !== undefined || this.options.enterprise !== undefined;
  }

  private session(server: URL): ServerSession {
    let session = this.sessions.get(server);
    if (session === undefined) {
      session = sessionFor(this.store, canonicalServerUri(server));
      this.serverOrigins.add(server.origin);
      this.sessions.set(server, session);
    }
    return session;
  }
}

/** An authorization provider for `connect({ url, auth })` and Switchboard entries (see OAuthProvider). */
export function oauth(options: OAuthOptions = {}): OAuthProvider {
  return new OAuthProvider(options);
}

/**
 * An unauthenticated request to learn what the server demands: a JSON-RPC ping by POST (an MCP
 * server behind OAuth answers any request 401 before reading it). A WebSocket endpoint is asked over
 * http(s); when it does not answer 401/403, its metadata is looked up at the well-known URLs.
 */
async function probe(server: URL, http: HttpSettings): Promise<{ status: 401 | 403; wwwAuthenticate: string | undefined } | undefined> {
  const target = new URL(canonicalServerUri(server));
  let response: Response;
  try {
    response = await (http.fetch ?? fetch)(target, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
      redirect: "manual",
      signal: AbortSignal.timeout(http.timeoutMs ?? 30_000),
    });
  } catch (error) {
    throw new AuthorizationError(`POST ${target.href} failed: ${describeFetchError(error)}`, { url: target.href });
  }
  await response.body?.cancel().catch(() => {});
  if (response.status === 401 || response.status === 403)
    return { status: response.status, wwwAuthenticate: response.headers.get("www-authenticate") ?? undefined };
  if (server.protocol === "ws:" || server.protocol === "wss:") return { status: 401, wwwAuthenticate: undefined };
  return undefined;
}

function originOf(url: URL): string {
  if (url.protocol === "ws:") return `http://${url.host}`;
  if (url.protocol === "wss:") return `https://${url.host}`;
  return url.origin;
}

function callbackParams(callback: string | URL | URLSearchParams): URLSearchParams {
  if (callback instanceof URLSearchParams) return callback;
  if (callback instanceof URL) return callback.searchParams;
  const text = callback.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(text)) return new URL(text).searchParams;
  return new URLSearchParams(text.startsWith("?") ? text.slice(1) : text);
}

function checkMetadataUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || parsed.protocol !== "https:" || parsed.pathname === "/") {
    throw new AuthorizationError(`clientMetadataUrl must be an https URL with a path (it is the client ID), got ${JSON.stringify(url)}`);
  }
}
