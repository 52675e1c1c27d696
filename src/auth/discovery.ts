/**
 * The MCP discovery rules (authorization spec 2025-06-18 and later, with the 2025-03-26 fallback):
 *
 * 1. Protected resource metadata (RFC 9728): the `resource_metadata` URL of the challenge first, then
 *    the path-aware well-known URL (`/.well-known/oauth-protected-resource/<path>`), then the root one.
 *    A candidate that answers 4xx/5xx or no JSON object with a `resource` is skipped. Metadata whose
 *    `resource` is not this server (another origin, or a path this server is not under) is refused:
 *    no authorization happens at all, since the metadata may come from an attacker.
 * 2. Authorization server metadata for the first listed issuer: RFC 8414 then OpenID discovery, for an
 *    issuer without a path `/.well-known/oauth-authorization-server`, `/.well-known/openid-configuration`;
 *    with a path `/.well-known/oauth-authorization-server/<path>`, `/.well-known/openid-configuration/<path>`,
 *    `<path>/.well-known/openid-configuration`. Any 4xx (and 502), or a 200 that is not JSON metadata,
 *    falls through to the next. A document whose `issuer` is not identical to the issuer used is refused
 *    (RFC 8414 §3.3).
 * 3. No protected resource metadata at all (a 2025-03-26 server): the server's origin is the
 *    authorization base URL; metadata at its root, else the endpoints `/authorize`, `/token` and
 *    `/register` there. Here the document may name an issuer with a path on that same origin (as
 *    2025-03-26 deployments, and conformance 0.1.16, do): it comes from the server itself, so it
 *    cannot impersonate another authorization server; that issuer is then the one recorded.
 */
import type * as oauth from "oauth4webapi";
import { AuthorizationError } from "./errors.js";
import { getJson, jsonObject, type HttpSettings } from "./http.js";

export interface ResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported?: string[];
  dpop_signing_alg_values_supported?: string[];
  dpop_bound_access_tokens_required?: boolean;
  [field: string]: unknown;
}

export interface DiscoveredServer {
  /** The resource indicator (RFC 8707) tokens are asked for. */
  resource: string;
  resourceMetadata: ResourceMetadata | undefined;
  /** The issuer identifier: credentials are kept per issuer. */
  issuer: string;
  metadata: oauth.AuthorizationServer;
  /** No metadata document: the 2025-03-26 default endpoints are assumed. */
  assumedEndpoints: boolean;
}

/** The server's URL as a resource: http(s) even for WebSocket, no query or fragment, no lone trailing "/". */
export function canonicalServerUri(server: URL): string {
  const url = new URL(server.href);
  if (url.protocol === "ws:") url.protocol = "http:";
  if (url.protocol === "wss:") url.protocol = "https:";
  url.hash = "";
  url.search = "";
  return url.pathname === "/" ? url.origin : url.href.replace(/\/$/, "");
}

/** Whether metadata naming `resource` may be used for `serverUri`: same origin, and the server's path under the resource's. */
export function resourceAllowed(serverUri: string, resource: string): boolean {
  let server: URL;
  let claimed: URL;
  try {
    server = new URL(serverUri);
    claimed = new URL(resource);
  } catch {
    return false;
  }
  if (claimed.hash !== "" || server.origin !== claimed.origin) return false;
  const base = claimed.pathname.endsWith("/") ? claimed.pathname : `${claimed.pathname}/`;
  const path = server.pathname.endsWith("/") ? server.pathname : `${server.pathname}/`;
  return path.startsWith(base);
}

export async function discoverServer(
  server: URL,
  challengeMetadataUrl: string | undefined,
  settings: HttpSettings,
  preferredIssuer?: string,
): Promise<DiscoveredServer> {
  const serverUri = canonicalServerUri(server);
  const resourceMetadata = await discoverResourceMetadata(serverUri, challengeMetadataUrl, settings);
  if (resourceMetadata === undefined) {
    const origin = new URL(serverUri).origin;
    const found = await discoverAuthorizationServer(origin, settings, true);
    return {
      resource: serverUri,
      resourceMetadata,
      issuer: found?.issuer ?? origin,
      metadata: found ?? assumedEndpoints(origin),
      assumedEndpoints: found === undefined,
    };
  }
  const listed = (resourceMetadata.authorization_servers ?? []).filter((issuer) => typeof issuer === "string");
  const first = listed[0];
  if (first === undefined) {
    throw new AuthorizationError(`The protected resource metadata of ${serverUri} lists no authorization_servers; cannot authorize`, { url: serverUri });
  }
  const issuer = preferredIssuer !== undefined && listed.includes(preferredIssuer) ? preferredIssuer : first;
  const metadata = await discoverAuthorizationServer(issuer, settings);
  if (metadata === undefined) {
    throw new AuthorizationError(
      `No authorization server metadata for ${issuer} (the authorization server of ${serverUri}): tried RFC 8414 and OpenID discovery`,
      { url: issuer },
    );
  }
  return { resource: resourceMetadata.resource, resourceMetadata, issuer, metadata, assumedEndpoints: false };
}

export async function discoverResourceMetadata(
  serverUri: string,
  challengeMetadataUrl: string | undefined,
  settings: HttpSettings,
): Promise<ResourceMetadata | undefined> {
  const server = new URL(serverUri);
  const candidates: URL[] = [];
  if (challengeMetadataUrl !== undefined) {
    try {
      const url = new URL(challengeMetadataUrl);
      if (url.protocol === "https:" || url.protocol === "http:") candidates.push(url);
    } catch {
      // An unusable resource_metadata: the well-known URLs still apply.
    }
  }
  const path = server.pathname === "/" ? "" : server.pathname.replace(/\/$/, "");
  if (path !== "") candidates.push(new URL(`/.well-known/oauth-protected-resource${path}`, server.origin));
  candidates.push(new URL("/.well-known/oauth-protected-resource", server.origin));
  for (const url of candidates) {
    const body = await jsonObject(await getJson(url, settings));
    if (body === undefined || typeof body.resource !== "string") continue;
    if (!resourceAllowed(serverUri, body.resource)) {
      throw new AuthorizationError(
        `The protected resource metadata at ${url.href} is for ${body.resource}, not for ${serverUri}; refusing to authorize (RFC 9728 §3.3)`,
        { url: url.href },
      );
    }
    return body as ResourceMetadata;
  }
  return undefined;
}

/** The metadata URLs of an issuer, in the order the MCP specification gives. */
export function metadataUrls(issuer: string): URL[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  if (path === "") {
    return [new URL("/.well-known/oauth-authorization-server", url.origin), new URL("/.well-known/openid-configuration", url.origin)];
  }
  return [
    new URL(`/.well-known/oauth-authorization-server${path}`, url.origin),
    new URL(`/.well-known/openid-configuration${path}`, url.origin),
    new URL(`${path}/.well-known/openid-configuration`, url.origin),
  ];
}

export async function discoverAuthorizationServer(
  issuer: string,
  settings: HttpSettings,
  sameOriginIssuer = false,
): Promise<oauth.AuthorizationServer | undefined> {
  let urls: URL[];
  try {
    urls = metadataUrls(issuer);
  } catch {
    throw new AuthorizationError(`The authorization server "${issuer}" is not a URL`);
  }
  for (const url of urls) {
    const response = await getJson(url, settings);
    if (response.status >= 500 && response.status !== 502) {
      await response.body?.cancel().catch(() => {});
      throw new AuthorizationError(`GET ${url.href} answered HTTP ${response.status}; the authorization server ${issuer} is failing`, {
        url: url.href,
        status: response.status,
      });
    }
    const body = await jsonObject(response);
    if (body === undefined || typeof body.issuer !== "string") continue;
    // Identical, or the issuer without the trailing "/" a URL's href adds (issuers are compared as published).
    if (body.issuer !== issuer && `${body.issuer}/` !== issuer && !(sameOriginIssuer && sameOrigin(body.issuer, issuer))) {
      throw new AuthorizationError(
        `The authorization server metadata at ${url.href} names the issuer ${body.issuer}, not ${issuer}; refusing to use it (RFC 8414 §3.3)`,
        { url: url.href },
      );
    }
    return body as unknown as oauth.AuthorizationServer;
  }
  return undefined;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

function assumedEndpoints(origin: string): oauth.AuthorizationServer {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    code_challenge_methods_supported: ["S256"],
  };
}
