/**
 * The seam between the network transports and authorization. A transport asks its provider for the
 * headers of each request and, when the server refuses one with 401 or 403, hands it the challenge;
 * on "retry" it sends the same request once more (the refused request never ran, so that is safe).
 * The provider does everything else: discovery, registration, grants, refresh, step-up, DPoP.
 */

import type { UrlPolicy } from "./url-policy.js";

export interface AuthRequest {
  /** The MCP endpoint the transport was made for: credentials belong to it (and to its origin only). */
  server: URL;
  /** Where this request goes (legacy SSE posts to another path of the same origin). */
  url: URL;
  /** The HTTP method (`GET` for a WebSocket upgrade). */
  method: string;
}

export interface AuthChallenge extends AuthRequest {
  status: 401 | 403;
  /** The `WWW-Authenticate` header of the refusal, as sent. */
  wwwAuthenticate: string | undefined;
  /** The `DPoP-Nonce` header of the refusal (RFC 9449 §9), if any. */
  dpopNonce?: string | undefined;
  /** The `Authorization` header the refused request carried: tells a stale token from a rejected one. */
  authorization?: string | undefined;
}

export type ChallengeVerdict = "retry" | "fail";

export interface AuthProvider {
  /**
   * Headers for one request (`authorization`, and `dpop` when DPoP is on), lower-case names. Returns
   * the object synchronously while the token is fresh; the transport must not change it.
   */
  headers(request: AuthRequest): Record<string, string> | Promise<Record<string, string>>;
  /**
   * Acts on a refusal: refreshes, authorizes, steps up, or records a DPoP nonce, shared by every
   * request that meets the same refusal. "retry": send the request again; "fail": give up with the
   * server's answer. Throws `AuthRequiredError` when a person must act and nobody was configured to ask.
   */
  handleChallenge(challenge: AuthChallenge): Promise<ChallengeVerdict>;
  /** The transport's URL policy: every metadata, registration and token URL is checked against it (url-policy.ts). */
  useUrlPolicy?(policy: UrlPolicy): void;
}

export function isAuthProvider(value: unknown): value is AuthProvider {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as AuthProvider).headers === "function" &&
    typeof (value as AuthProvider).handleChallenge === "function"
  );
}
