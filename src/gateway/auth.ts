/**
 * Auth in front of the gateway: a bearer token becomes a principal (the name the board's per-principal
 * credentials and lists go by), or the request gets 401 pointing at the protected resource metadata
 * (RFC 9728). API keys are compared by their SHA-256 digests, so a key is never held in a map as
 * itself nor looked up in time that depends on how much of it matched. The token itself stays here:
 * nothing downstream of this file (the board, the upstream servers) ever sees it.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from "jose";
import { ConfigError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";

/** Who may call the gateway, and as which principal: API keys, JWTs (by default the `sub` claim), or a function. */
export type GatewayAuth =
  | { apiKeys: Record<string, string> }
  | { jwt: { issuer: string; audience: string; jwksUrl?: string | undefined; principalClaim?: string | undefined } }
  | { verify: (token: string) => Promise<string | undefined> | string | undefined };

/** Turns a request's bearer token into its principal; undefined: no valid token. */
export type Authenticate = (request: IncomingMessage) => Promise<string | undefined>;

const digest = (key: string) => createHash("sha256").update(key).digest("base64");

export function bearerOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined || header.length < 8 || header.slice(0, 7).toLowerCase() !== "bearer ") return undefined;
  const token = header.slice(7).trim();
  return token === "" ? undefined : token;
}

export function makeAuthenticate(auth: GatewayAuth): Authenticate {
  if (!isObject(auth)) throw new ConfigError("expected { apiKeys }, { jwt } or { verify }", { field: "gateway.auth" });
  if ("apiKeys" in auth) {
    if (!isObject(auth.apiKeys) || Object.keys(auth.apiKeys).length === 0)
      throw new ConfigError("expected an object of { [key]: principal } with at least one key", { field: "gateway.auth.apiKeys" });
    const principals = new Map<string, string>();
    for (const [key, principal] of Object.entries(auth.apiKeys)) {
      if (typeof principal !== "string" || principal === "")
        throw new ConfigError("each API key's principal must be a non-empty string", { field: "gateway.auth.apiKeys" });
      principals.set(digest(key), principal);
    }
    return async (request) => {
      const token = bearerOf(request);
      return token === undefined ? undefined : principals.get(digest(token));
    };
  }
  if ("jwt" in auth) return jwtAuthenticate(auth.jwt);
  if ("verify" in auth && typeof auth.verify === "function") {
    const verify = auth.verify;
    return async (request) => {
      const token = bearerOf(request);
      if (token === undefined) return undefined;
      const principal = await verify(token);
      return typeof principal === "string" && principal !== "" ? principal : undefined;
    };
  }
  throw new ConfigError("expected { apiKeys }, { jwt } or { verify }", { field: "gateway.auth" });
}

function jwtAuthenticate(jwt: { issuer: string; audience: string; jwksUrl?: string | undefined; principalClaim?: string | undefined }): Authenticate {
  if (!isObject(jwt) || typeof jwt.issuer !== "string" || typeof jwt.audience !== "string")
    throw new ConfigError("expected { issuer, audience, jwksUrl? } (strings)", { field: "gateway.auth.jwt" });
  let jwksUrl: URL;
  try {
    jwksUrl = new URL(jwt.jwksUrl ?? `${jwt.issuer.replace(/\/$/, "")}/.well-known/jwks.json`);
  } catch (cause) {
    throw new ConfigError(`not a URL: ${jwt.jwksUrl ?? jwt.issuer}`, { field: "gateway.auth.jwt.jwksUrl", cause });
  }
  const keys: JWTVerifyGetKey = createRemoteJWKSet(jwksUrl);
  const claim = jwt.principalClaim ?? "sub";
  return async (request) => {
    const token = bearerOf(request);
    if (token === undefined) return undefined;
    try {
      const { payload } = await jwtVerify(token, keys, { issuer: jwt.issuer, audience: jwt.audience });
      const principal = payload[claim];
      return typeof principal === "string" && principal !== "" ? principal : undefined;
    } catch {
      return undefined;
    }
  };
}

/** RFC 9728 protected resource metadata for the gateway at `resource`. */
export function resourceMetadata(auth: GatewayAuth, resource: string): Record<string, unknown> {
  return {
    resource,
    bearer_methods_supported: ["header"],
    ...("jwt" in auth ? { authorization_servers: [auth.jwt.issuer] } : {}),
  };
}

/** Where the metadata is served for an endpoint path ("/mcp" -> "/.well-known/oauth-protected-resource/mcp"). */
export function metadataPath(path: string): string {
  return `/.well-known/oauth-protected-resource${path === "/" ? "" : path}`;
}
