/**
 * Getting tokens for a server, in the order the rules give: a refresh if there is a refresh token
 * (inside the store's exclusive update, so another process that refreshed first is noticed and its
 * tokens used instead of spending the rotated refresh token twice); else the configured grant:
 * client credentials, JWT bearer (workload identity), enterprise token exchange, or the authorization
 * code flow with a person. `invalid_grant` drops the tokens and authorizes anew; `invalid_client`
 * drops a registered client and registers again.
 */
import { resolveClient, type ClientIdentity, type ClientSettings } from "./client-identity.js";
import { discoverServer, type DiscoveredServer } from "./discovery.js";
import { DpopKey } from "./dpop.js";
import { AuthRequiredError, AuthorizationError } from "./errors.js";
import {
  authorizationUrl,
  clientCredentialsGrant,
  exchangeCode,
  jwtBearerGrant,
  refreshGrant,
  requestIdJag,
  JWT_BEARER_GRANT,
  type GrantContext,
  type PendingAuthorization,
} from "./grants.js";
import type { HttpSettings } from "./http.js";
import { openLoopback } from "./loopback.js";
import type { OAuthEvent, OAuthOptions, Supplier } from "./options.js";
import type { ServerSession } from "./session.js";
import { refreshDue, type StoredAuth, type StoredClient, type StoredTokens } from "./token-store.js";
import type { TokenEndpointResponse } from "oauth4webapi";

export interface Flow {
  options: OAuthOptions;
  http: HttpSettings;
  client: ClientSettings;
  emit(event: OAuthEvent): void;
  /** Authorization code flows waiting for their callback, by state. */
  pending: Map<string, PendingCode>;
}

export interface PendingCode {
  pending: PendingAuthorization;
  context: GrantContext;
  session: ServerSession;
  issuer: string;
  scope: string | undefined;
  identity: ClientIdentity;
}

export async function discover(flow: Flow, session: ServerSession, server: URL, resourceMetadataUrl: string | undefined): Promise<DiscoveredServer> {
  const found = await discoverServer(server, resourceMetadataUrl, flow.http, flow.options.authorizationServer);
  if (session.issuer !== found.issuer) await session.useIssuer(found.issuer);
  session.discovered = found;
  flow.emit({ type: "discovered", server: session.server, issuer: found.issuer, resource: found.resource, assumedEndpoints: found.assumedEndpoints });
  return found;
}

/** Tokens that work: refreshed (or another process's newer ones), else from the configured grant. */
export async function obtainTokens(
  flow: Flow,
  session: ServerSession,
  server: URL,
  scope: string | undefined,
  rejected: string | undefined,
  forceNew: boolean,
): Promise<void> {
  if (!forceNew && (await refresh(flow, session, server, rejected))) return;
  await grant(flow, session, server, scope);
}

/** true when usable tokens are in place after it (refreshed, or adopted from the store). */
export async function refresh(flow: Flow, session: ServerSession, server: URL, rejected: string | undefined): Promise<boolean> {
  const stored = session.issuer === undefined ? undefined : await session.store.get(session.server, session.issuer);
  if (stored?.tokens === undefined) return false;
  if (stored.tokens.accessToken !== rejected && stored.tokens.accessToken !== session.tokens?.accessToken && !expired(stored.tokens)) {
    await session.adopt(stored);
    return true;
  }
  if (stored.tokens.refreshToken === undefined) return false;
  const found = session.discovered ?? (await discover(flow, session, server, undefined));
  let outcome = "failed" as "adopted" | "refreshed" | "failed";
  await session.update(async (current) => {
    const tokens = current?.tokens;
    if (tokens === undefined) return current;
    // Another process refreshed while this one waited for the lock: its tokens are the current ones.
    if (tokens.accessToken !== rejected && tokens.accessToken !== session.tokens?.accessToken && !expired(tokens)) {
      outcome = "adopted";
      return current;
    }
    if (tokens.refreshToken === undefined) return current;
    const identity = await identityFor(flow, session.server, found, current?.client, undefined, [], undefined);
    if (identity === undefined) return current;
    const dpop = current?.dpopKey !== undefined ? await DpopKey.fromJwk(current.dpopKey) : undefined;
    try {
      const response = await refreshGrant(contextFor(flow, found, identity, dpop), tokens.refreshToken);
      outcome = "refreshed";
      return { ...current!, tokens: storedTokens(response, tokens.scope, tokens) };
    } catch (error) {
      if (!(error instanceof AuthorizationError)) throw error;
      if (error.oauthError === "invalid_grant") {
        flow.emit({ type: "dropped", server: session.server, issuer: found.issuer, what: "tokens", reason: "the refresh token was refused (invalid_grant)" });
        return { ...current!, tokens: undefined };
      }
      if (error.oauthError === "invalid_client" && current?.client?.source === "dynamic") {
        droppedClient(flow, session.server, found.issuer);
        return { ...current, tokens: undefined, client: undefined };
      }
      throw error;
    }
  });
  if (outcome === "refreshed") flow.emit({ type: "refreshed", server: session.server, issuer: found.issuer });
  return outcome !== "failed";
}

async function grant(flow: Flow, session: ServerSession, server: URL, scope: string | undefined): Promise<void> {
  const found = session.discovered ?? (await discover(flow, session, server, undefined));
  const { options } = flow;
  for (let attempt = 0; ; attempt++) {
    try {
      if (options.assertion !== undefined)
        return await machineGrant(flow, session, found, scope, JWT_BEARER_GRANT, async (context) =>
          jwtBearerGrant(context, await supply(options.assertion!), scope),
        );
      if (options.enterprise !== undefined) {
        const enterprise = options.enterprise;
        return await machineGrant(flow, session, found, scope, JWT_BEARER_GRANT, async (context) => {
          const idp = {
            issuer: enterprise.idpIssuer ?? new URL(enterprise.idpTokenEndpoint).origin,
            tokenEndpoint: enterprise.idpTokenEndpoint,
            clientId: enterprise.idpClientId,
            clientSecret: enterprise.idpClientSecret,
          };
          const idJag = await requestIdJag(idp, await supply(enterprise.idToken), found.metadata.issuer, found.resource, scope, flow.http);
          return jwtBearerGrant(context, idJag, scope);
        });
      }
      if (options.grant === "client_credentials")
        return await machineGrant(flow, session, found, scope, "client_credentials", (context) => clientCredentialsGrant(context, scope));
      return await authorizationCodeFlow(flow, session, found, scope);
    } catch (error) {
      // A registration the server no longer knows: register again, once.
      if (attempt === 0 && error instanceof AuthorizationError && error.oauthError === "invalid_client" && session.auth?.client?.source === "dynamic") {
        droppedClient(flow, session.server, found.issuer);
        await session.update((current) => (current === undefined ? undefined : { ...current, client: undefined, tokens: undefined }));
        continue;
      }
      throw error;
    }
  }
}

async function machineGrant(
  flow: Flow,
  session: ServerSession,
  found: DiscoveredServer,
  scope: string | undefined,
  grantType: string,
  request: (context: GrantContext) => Promise<TokenEndpointResponse>,
): Promise<void> {
  const identity = (await identityFor(flow, session.server, found, session.auth?.client, undefined, [grantType], scope, true))!;
  const dpop = await dpopKeyFor(flow, session, found);
  const response = await request(contextFor(flow, found, identity, dpop));
  await save(flow, session, found.issuer, identity, dpop, response, scope, grantType);
}

async function authorizationCodeFlow(flow: Flow, session: ServerSession, found: DiscoveredServer, scope: string | undefined): Promise<void> {
  const { options } = flow;
  const server = session.server;
  flow.emit({ type: "authorization-required", server, issuer: found.issuer });
  const loopback = options.loopback === undefined || options.loopback === false ? undefined : options.loopback === true ? {} : options.loopback;
  if (loopback === undefined && options.redirectUri === undefined) {
    throw new AuthRequiredError(
      `${server} needs authorization at ${found.issuer}, and nothing here can ask a person: authorize it with \`mcp-switchboard login\`, or give oauth() a redirectUri (then error.authorizationUrl and finishAuthorization()), a loopback listener or onAuthorizationUrl`,
      { url: server },
    );
  }
  const listener = loopback === undefined ? undefined : await openLoopback(loopback, registeredPort(session.auth?.client));
  try {
    const redirectUri = listener?.redirectUri ?? options.redirectUri!;
    const identity = (await identityFor(flow, server, found, session.auth?.client, redirectUri, ["authorization_code", "refresh_token"], scope, true))!;
    if (identity.stored !== undefined && identity.stored !== session.auth?.client) {
      // Kept at once: the callback may be finished later, or by another process, and needs this client.
      const stored = identity.stored;
      await session.update((current) => ({ ...current, client: stored, updatedAt: Date.now() }));
    }
    const dpop = await dpopKeyFor(flow, session, found);
    const context = contextFor(flow, found, identity, dpop);
    const { url, pending } = await authorizationUrl(context, redirectUri, scope, found.assumedEndpoints);
    const code: PendingCode = { pending, context, session, issuer: found.issuer, scope, identity };
    let callback: URL | undefined;
    if (options.onAuthorizationUrl !== undefined) {
      const answer = await options.onAuthorizationUrl(url, { server, issuer: found.issuer });
      if (answer !== undefined && answer !== "") callback = new URL(String(answer), redirectUri);
    }
    if (callback === undefined && listener !== undefined) callback = await listener.callback;
    if (callback === undefined) {
      flow.pending.set(pending.state, code);
      throw new AuthRequiredError(
        `${server} needs authorization at ${found.issuer}: open error.authorizationUrl, then pass the URL the browser is sent back to to finishAuthorization()`,
        {
          url: server,
          authorizationUrl: url.href,
          state: pending.state,
        },
      );
    }
    await completeCode(flow, code, callback.searchParams);
  } finally {
    await listener?.close();
  }
}

/** Redeems the code of a callback (once: the verifier is dropped whatever happens). */
export async function completeCode(flow: Flow, code: PendingCode, callback: URLSearchParams): Promise<void> {
  flow.pending.delete(code.pending.state);
  if (code.session.issuer !== code.issuer) {
    throw new AuthorizationError(
      `The authorization server of ${code.session.server} changed from ${code.issuer} to ${code.session.issuer} during the authorization; authorize again`,
    );
  }
  const response = await exchangeCode(code.context, callback, code.pending);
  await save(flow, code.session, code.issuer, code.identity, code.context.dpop, response, code.scope, "authorization_code");
}

async function save(
  flow: Flow,
  session: ServerSession,
  issuer: string,
  identity: ClientIdentity,
  dpop: DpopKey | undefined,
  response: TokenEndpointResponse,
  scope: string | undefined,
  grantType: string,
): Promise<void> {
  const bound = response.token_type === "dpop" && dpop !== undefined;
  const written = await session.update((current) => {
    const next: StoredAuth = { ...current, tokens: storedTokens(response, scope, undefined), updatedAt: Date.now() };
    if (identity.stored !== undefined) next.client = identity.stored;
    if (scope !== undefined) next.scope = scope;
    if (bound) next.dpopKey = dpop.privateJwk;
    else delete next.dpopKey;
    return next;
  });
  flow.emit({ type: "authorized", server: session.server, issuer, grant: grantType, scope: written?.tokens?.scope, tokenType: response.token_type });
}

async function identityFor(
  flow: Flow,
  server: string,
  found: DiscoveredServer,
  kept: StoredClient | undefined,
  redirectUri: string | undefined,
  grantTypes: string[],
  scope: string | undefined,
  mayRegister = false,
): Promise<ClientIdentity | undefined> {
  if (!mayRegister && flow.client.clientId === undefined && kept === undefined) return undefined;
  const identity = await resolveClient(flow.client, found.metadata, kept, { redirectUri, grantTypes }, flow.http);
  if (identity.stored !== undefined && identity.stored !== kept && identity.stored.source === "dynamic") {
    flow.emit({ type: "registered", server, issuer: found.issuer, clientId: identity.stored.clientId, method: identity.method });
  }
  return identity;
}

function contextFor(flow: Flow, found: DiscoveredServer, identity: ClientIdentity, dpop: DpopKey | undefined): GrantContext {
  return { as: found.metadata, client: identity.client, clientAuth: identity.auth, resource: found.resource, dpop, http: flow.http };
}

/** A DPoP key when DPoP is wanted: the one the current tokens are bound to, else a new one. */
async function dpopKeyFor(flow: Flow, session: ServerSession, found: DiscoveredServer): Promise<DpopKey | undefined> {
  const setting = flow.options.dpop ?? "auto";
  if (setting === false) return undefined;
  if (setting === "auto") {
    const asAlgs = found.metadata.dpop_signing_alg_values_supported ?? [];
    const resource = found.resourceMetadata;
    const resourceWants =
      session.challengeScheme === "dpop" ||
      resource?.dpop_bound_access_tokens_required === true ||
      (resource?.dpop_signing_alg_values_supported ?? []).length > 0;
    if (!asAlgs.includes("ES256") || !resourceWants) return undefined;
  }
  return session.dpop ?? DpopKey.generate();
}

export function storedTokens(response: TokenEndpointResponse, scope: string | undefined, previous: StoredTokens | undefined): StoredTokens {
  const now = Date.now();
  const tokens: StoredTokens = { accessToken: response.access_token, tokenType: response.token_type, obtainedAt: now };
  const refreshToken = response.refresh_token ?? previous?.refreshToken;
  if (refreshToken !== undefined) tokens.refreshToken = refreshToken;
  if (typeof response.expires_in === "number") tokens.expiresAt = now + response.expires_in * 1000;
  const granted = response.scope ?? scope ?? previous?.scope;
  if (granted !== undefined) tokens.scope = granted;
  return tokens;
}

/** The registered client was refused (invalid_client): its registration is forgotten, and made again. */
function droppedClient(flow: Flow, server: string, issuer: string): void {
  flow.emit({ type: "dropped", server, issuer, what: "client", reason: "the registered client was refused (invalid_client)" });
}

function expired(tokens: StoredTokens): boolean {
  return refreshDue(tokens, Date.now());
}

function registeredPort(client: StoredClient | undefined): number | undefined {
  for (const uri of client?.redirectUris ?? []) {
    try {
      const url = new URL(uri);
      if (url.hostname === "127.0.0.1" && url.port !== "") return Number(url.port);
    } catch {
      // not a URL: nothing to reuse
    }
  }
  return undefined;
}

async function supply(value: Supplier<string>): Promise<string> {
  return typeof value === "function" ? await value() : value;
}
