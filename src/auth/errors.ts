/**
 * The errors of the authorization layer. Both are `McpError`s that are not retryable elsewhere (another
 * server will not fix a missing consent) and were never delivered (a refused request did not run).
 * Their messages name the server and the authorization server, never a token, code, verifier or secret.
 */
import { McpError } from "../jsonrpc/errors.js";

export interface AuthRequiredErrorOptions {
  /** The MCP server that asked for authorization. */
  url: string;
  /** Where a person must go to grant access, when it could be built (see `oauth()`'s `redirectUri`). */
  authorizationUrl?: string | undefined;
  /** The OAuth `state` of the pending authorization: `finishAuthorization()` matches the callback by it. */
  state?: string | undefined;
  server?: string | undefined;
  cause?: unknown;
}

/**
 * A person must act before this server can be used: nothing stored, the refresh token was refused, or a
 * step-up needs consent, and no `onAuthorizationUrl` or loopback listener was configured. The host shows
 * `authorizationUrl`, then finishes with `provider.finishAuthorization(callbackUrl)` and reconnects
 * (or runs `mcp-switchboard login <server>`). Never retried by itself.
 */
export class AuthRequiredError extends McpError {
  readonly url: string;
  readonly authorizationUrl: string | undefined;
  readonly state: string | undefined;
  constructor(message: string, options: AuthRequiredErrorOptions) {
    super(message, { retryable: false, delivered: false, server: options.server, cause: options.cause });
    this.url = options.url;
    this.authorizationUrl = options.authorizationUrl;
    this.state = options.state;
  }
}

export interface AuthorizationErrorOptions {
  /** The endpoint that failed (metadata, registration, token, authorization callback). */
  url?: string | undefined;
  /** HTTP status of that endpoint's answer, when there was one. */
  status?: number | undefined;
  /** The OAuth `error` code the authorization server answered (`invalid_grant`, `invalid_client`, ...). */
  oauthError?: string | undefined;
  server?: string | undefined;
  cause?: unknown;
}

/**
 * An OAuth step failed in a way a person cannot fix by consenting: discovery found no usable metadata,
 * metadata or a callback failed a security check (resource, issuer, `iss`, `state`), or an endpoint
 * refused the client.
 */
export class AuthorizationError extends McpError {
  readonly url: string | undefined;
  readonly status: number | undefined;
  readonly oauthError: string | undefined;
  constructor(message: string, options: AuthorizationErrorOptions = {}) {
    super(message, { retryable: false, delivered: false, server: options.server, cause: options.cause });
    this.url = options.url;
    this.status = options.status;
    this.oauthError = options.oauthError;
  }
}
