/** What `oauth(options)` takes, and the events it reports (which never carry a secret). */
import type { JWK } from "jose";
import type { JsonObject } from "oauth4webapi";
import type { FetchLike } from "./http.js";
import type { LoopbackOptions } from "./loopback.js";
import type { TokenStore } from "./token-store.js";

export type Supplier<T> = T | (() => T | Promise<T>);

export interface EnterpriseOptions {
  /** The enterprise identity provider's token endpoint (RFC 8693 token exchange). */
  idpTokenEndpoint: string;
  /** Its issuer (default: the endpoint's origin). */
  idpIssuer?: string | undefined;
  /** This client's ID at the identity provider. */
  idpClientId: string;
  idpClientSecret?: string | undefined;
  /** The user's ID token from the identity provider (a string, or a function returning a current one). */
  idToken: Supplier<string>;
}

export interface AuthorizationUrlInfo {
  /** The MCP server (canonical URI). */
  server: string;
  /** The authorization server. */
  issuer: string;
}

export interface OAuthOptions {
  /** Where credentials are kept (default: one memory store shared by the whole process). */
  store?: TokenStore | undefined;
  /** A pre-registered client ID (skips registration). */
  clientId?: string | undefined;
  clientSecret?: string | undefined;
  /** A private key (PKCS#8 PEM or private JWK) for private_key_jwt client authentication. */
  privateKey?: string | JWK | undefined;
  /** The private key's algorithm (default ES256). */
  signingAlgorithm?: string | undefined;
  /** An https URL of this client's metadata document, used as its client ID where the server supports it. */
  clientMetadataUrl?: string | undefined;
  /** Sent in dynamic registration (default "mcp-switchboard"). */
  clientName?: string | undefined;
  /** Dynamic registration's application_type (default: native for loopback/custom-scheme redirects, else web). */
  applicationType?: "native" | "web" | undefined;
  /** Force a token endpoint authentication method instead of choosing from what the server supports. */
  tokenEndpointAuthMethod?: "none" | "client_secret_basic" | "client_secret_post" | "private_key_jwt" | undefined;
  /** More client metadata for dynamic registration (client_uri, logo_uri, contacts, ...). */
  clientMetadata?: JsonObject | undefined;
  /** Scopes to ask for when neither the challenge nor the server's metadata names any. */
  scope?: string | undefined;
  /** "authorization_code" (default: a user consents) or "client_credentials" (machine to machine). */
  grant?: "authorization_code" | "client_credentials" | undefined;
  /** Workload identity (RFC 7523 JWT bearer): the assertion, or a function returning a current one. */
  assertion?: Supplier<string> | undefined;
  /** Enterprise-managed authorization (SEP-990): token exchange at the identity provider, then JWT bearer. */
  enterprise?: EnterpriseOptions | undefined;
  /** Where the authorization server sends the browser back (needed without `loopback`). */
  redirectUri?: string | undefined;
  /** Receive the callback on 127.0.0.1 (command-line and desktop use). */
  loopback?: boolean | LoopbackOptions | undefined;
  /**
   * Called with the authorization URL when a person must consent: open a browser, print it, hand it
   * to a user. Return the callback URL if you have it (automation, an embedded browser); otherwise the
   * loopback listener waits for it, or `AuthRequiredError` is thrown and `finishAuthorization()` ends it later.
   */
  onAuthorizationUrl?: ((url: URL, info: AuthorizationUrlInfo) => void | string | URL | Promise<void | string | URL>) | undefined;
  /** DPoP-bound tokens (RFC 9449): true, false, or "auto" (default: when both servers ask for it). */
  dpop?: boolean | "auto" | undefined;
  /** Of the authorization servers a resource lists, use this one (default: the first). */
  authorizationServer?: string | undefined;
  /** Step-ups (403 insufficient_scope) allowed after each authorization (default 2). */
  maxStepUps?: number | undefined;
  /** fetch for authorization server requests (default: the global one). */
  fetch?: FetchLike | undefined;
  /** Per authorization server request (default 30000 ms). */
  timeoutMs?: number | undefined;
  /** Allow plain http authorization servers on non-loopback hosts (default false: OAuth needs TLS). */
  allowInsecureHttp?: boolean | undefined;
  /** What happened, for logs and metrics. Events never hold tokens, codes, verifiers or secrets. */
  onEvent?: ((event: OAuthEvent) => void) | undefined;
}

export type OAuthEvent =
  | { type: "discovered"; server: string; issuer: string; resource: string; assumedEndpoints: boolean }
  | { type: "registered"; server: string; issuer: string; clientId: string; method: string }
  | { type: "authorization-required"; server: string; issuer: string }
  | { type: "authorized"; server: string; issuer: string; grant: string; scope: string | undefined; tokenType: string }
  | { type: "refreshed"; server: string; issuer: string }
  | { type: "dropped"; server: string; issuer: string; what: "tokens" | "client"; reason: string }
  | { type: "step-up"; server: string; issuer: string; scope: string | undefined }
  | { type: "dpop-nonce"; server: string; origin: string };
