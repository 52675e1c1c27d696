/**
 * The OAuth requests, through oauth4webapi: the authorization URL (PKCE S256, `state`, RFC 8707
 * `resource`), the callback check (`state`, RFC 9207 `iss`, `error`), and the token requests
 * (authorization code, refresh, client credentials, JWT bearer, token exchange), each with the
 * `resource`, client authentication, and a DPoP proof when a key is given, sent again once when the
 * authorization server asks for a DPoP nonce. Failures become AuthorizationErrors that carry the
 * server's OAuth error code and never the request's secrets.
 */
import { display } from "../util/guards.js";
import * as oauth from "oauth4webapi";
import { clientSecretBasic } from "./client-identity.js";
import type { DpopKey } from "./dpop.js";
import { AuthorizationError } from "./errors.js";
import { describeFetchError, oauthRequestOptions, type HttpSettings } from "./http.js";

export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";

export interface GrantContext {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  clientAuth: oauth.ClientAuth;
  /** The RFC 8707 resource indicator sent with every request. */
  resource: string;
  dpop?: DpopKey | undefined;
  http: HttpSettings;
}

export interface PendingAuthorization {
  state: string;
  verifier: string;
  redirectUri: string;
}

export async function authorizationUrl(
  context: GrantContext,
  redirectUri: string,
  scope: string | undefined,
  assumedEndpoints: boolean,
): Promise<{ url: URL; pending: PendingAuthorization }> {
  const { as, client } = context;
  if (typeof as.authorization_endpoint !== "string") {
    throw new AuthorizationError(`The authorization server ${as.issuer} has no authorization_endpoint; it cannot authorize a user`, { url: as.issuer });
  }
  // MCP: refuse an authorization server that does not say it supports PKCE with S256, since without it
  // an intercepted code could be redeemed by anyone. The 2025-03-26 default endpoints have no metadata to say it.
  if (!assumedEndpoints && !(as.code_challenge_methods_supported ?? []).includes("S256")) {
    throw new AuthorizationError(
      `The authorization server ${as.issuer} does not list S256 in code_challenge_methods_supported; MCP requires PKCE, so it is not used`,
      { url: as.issuer },
    );
  }
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", client.client_id);
  url.searchParams.set("redirect_uri", redirectUri);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", state);
  if (scope !== undefined && scope !== "") url.searchParams.set("scope", scope);
  url.searchParams.set("resource", context.resource);
  if (context.dpop !== undefined) url.searchParams.set("dpop_jkt", await context.dpop.tokenHandle().calculateThumbprint());
  return { url, pending: { state, verifier, redirectUri } };
}

/** Checks the callback (state, iss, error) and redeems its code. */
export async function exchangeCode(context: GrantContext, callback: URLSearchParams, pending: PendingAuthorization): Promise<oauth.TokenEndpointResponse> {
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(context.as, context.client, callback, pending.state);
  } catch (error) {
    throw callbackError(error, context.as.issuer);
  }
  return tokenRequest(
    context,
    "authorization_code",
    (options) => oauth.authorizationCodeGrantRequest(context.as, context.client, context.clientAuth, params, pending.redirectUri, pending.verifier, options),
    (response) => oauth.processAuthorizationCodeResponse(context.as, context.client, response),
  );
}

export function refreshGrant(context: GrantContext, refreshToken: string): Promise<oauth.TokenEndpointResponse> {
  return tokenRequest(
    context,
    "refresh_token",
    (options) => oauth.refreshTokenGrantRequest(context.as, context.client, context.clientAuth, refreshToken, options),
    (response) => oauth.processRefreshTokenResponse(context.as, context.client, response),
  );
}

export function clientCredentialsGrant(context: GrantContext, scope: string | undefined): Promise<oauth.TokenEndpointResponse> {
  const parameters: Record<string, string> = { resource: context.resource };
  if (scope) parameters.scope = scope;
  return tokenRequest(
    context,
    "client_credentials",
    (options) => oauth.clientCredentialsGrantRequest(context.as, context.client, context.clientAuth, parameters, options),
    (response) => oauth.processClientCredentialsResponse(context.as, context.client, response),
    false,
  );
}

/** RFC 7523: an assertion (a workload identity token, or an enterprise ID-JAG) for an access token. */
export function jwtBearerGrant(context: GrantContext, assertion: string, scope: string | undefined): Promise<oauth.TokenEndpointResponse> {
  const parameters: Record<string, string> = { assertion, resource: context.resource };
  if (scope) parameters.scope = scope;
  return tokenRequest(
    context,
    JWT_BEARER_GRANT,
    (options) => oauth.genericTokenEndpointRequest(context.as, context.client, context.clientAuth, JWT_BEARER_GRANT, parameters, options),
    (response) => oauth.processGenericTokenEndpointResponse(context.as, context.client, response),
    false,
  );
}

export interface IdentityProvider {
  issuer: string;
  tokenEndpoint: string;
  clientId: string;
  clientSecret?: string | undefined;
}

/**
 * RFC 8693 at the enterprise identity provider: the user's ID token for an ID-JAG (identity assertion
 * authorization grant) addressed to the MCP server's authorization server (SEP-990).
 */
export async function requestIdJag(
  idp: IdentityProvider,
  idToken: string,
  audience: string,
  resource: string,
  scope: string | undefined,
  http: HttpSettings,
): Promise<string> {
  const as: oauth.AuthorizationServer = { issuer: idp.issuer, token_endpoint: idp.tokenEndpoint };
  const client: oauth.Client = { client_id: idp.clientId };
  const parameters: Record<string, string> = {
    subject_token: idToken,
    subject_token_type: "urn:ietf:params:oauth:token-type:id_token",
    requested_token_type: "urn:ietf:params:oauth:token-type:id-jag",
    audience,
    resource,
  };
  if (scope) parameters.scope = scope;
  const context: GrantContext = {
    as,
    client,
    clientAuth: idp.clientSecret !== undefined ? clientSecretBasic(idp.clientSecret) : oauth.None(),
    resource,
    http,
  };
  const response = await tokenRequest(
    context,
    TOKEN_EXCHANGE_GRANT,
    (options) => oauth.genericTokenEndpointRequest(as, client, context.clientAuth, TOKEN_EXCHANGE_GRANT, parameters, options),
    // An ID-JAG is not an access token: its token_type is "N_A" (RFC 8693 §2.2.1).
    (reply) => oauth.processGenericTokenEndpointResponse(as, client, reply, { recognizedTokenTypes: { n_a: () => {} } }),
    false,
  );
  if (response.issued_token_type !== "urn:ietf:params:oauth:token-type:id-jag") {
    throw new AuthorizationError(
      `The identity provider ${idp.issuer} answered the token exchange with a ${display(response.issued_token_type)}, not an ID-JAG`,
      { url: idp.tokenEndpoint },
    );
  }
  return response.access_token;
}

export async function revokeToken(context: GrantContext, token: string, hint: "refresh_token" | "access_token"): Promise<void> {
  const options = oauthRequestOptions(context.as.revocation_endpoint, context.http);
  const response = await oauth.revocationRequest(context.as, context.client, context.clientAuth, token, {
    ...options,
    additionalParameters: { token_type_hint: hint },
  });
  await oauth.processRevocationResponse(response);
}

type RequestOptions = ReturnType<typeof oauthRequestOptions> & { DPoP?: oauth.DPoPHandle; additionalParameters?: Record<string, string> };

async function tokenRequest(
  context: GrantContext,
  grant: string,
  send: (options: RequestOptions) => Promise<Response>,
  process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
  addResource = true,
): Promise<oauth.TokenEndpointResponse> {
  const endpoint = context.as.token_endpoint;
  for (let attempt = 0; ; attempt++) {
    const options: RequestOptions = oauthRequestOptions(endpoint, context.http);
    if (addResource) options.additionalParameters = { resource: context.resource };
    if (context.dpop !== undefined) options.DPoP = context.dpop.tokenHandle();
    try {
      return await process(await send(options));
    } catch (error) {
      // The handle now holds the nonce the server sent (RFC 9449 §8): one more try carries it.
      if (attempt === 0 && context.dpop !== undefined && oauth.isDPoPNonceError(error)) continue;
      throw tokenError(error, grant, endpoint ?? context.as.issuer);
    }
  }
}

function tokenError(error: unknown, grant: string, endpoint: string): AuthorizationError {
  if (error instanceof AuthorizationError) return error;
  if (error instanceof oauth.ResponseBodyError) {
    const description = error.error_description ? `: ${error.error_description.slice(0, 300)}` : "";
    return new AuthorizationError(`The token endpoint ${endpoint} refused the ${grant} grant with ${error.error} (HTTP ${error.status})${description}`, {
      url: endpoint,
      status: error.status,
      oauthError: error.error,
    });
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    return new AuthorizationError(`The token endpoint ${endpoint} refused the client (HTTP ${error.status}); check the client credentials`, {
      url: endpoint,
      status: error.status,
      oauthError: "invalid_client",
    });
  }
  if (error instanceof oauth.OperationProcessingError) {
    // oauth4webapi's messages describe the check that failed; its `cause` may hold the response body
    // (tokens), so it is not kept.
    return new AuthorizationError(`The ${grant} answer of ${endpoint} was refused: ${error.message}`, { url: endpoint });
  }
  if (error instanceof TypeError || (error as Error)?.name === "TimeoutError") {
    return new AuthorizationError(`The token request to ${endpoint} failed: ${describeFetchError(error)}`, { url: endpoint });
  }
  return new AuthorizationError(`The ${grant} request to ${endpoint} failed: ${(error as Error)?.message ?? String(error)}`, { url: endpoint });
}

function callbackError(error: unknown, issuer: string): AuthorizationError {
  if (error instanceof oauth.AuthorizationResponseError) {
    const description = error.error_description ? `: ${error.error_description.slice(0, 300)}` : "";
    return new AuthorizationError(`The authorization server ${issuer} refused the authorization with ${error.error}${description}`, {
      oauthError: error.error,
      url: issuer,
    });
  }
  // A wrong or missing state or iss: the response may come from an attacker (mix-up, CSRF); its code is never sent anywhere.
  return new AuthorizationError(`The authorization callback was rejected: ${(error as Error).message}; the code was not redeemed`, { url: issuer });
}
