/**
 * Headers for the network transports: the `auth` option of URL targets (a bearer token; a function
 * returning headers, called for each HTTP request since tokens rotate, and once per WebSocket
 * handshake; or an `AuthProvider` such as `oauth()`, see http-auth.ts), and header names folded to
 * lower case once, so a caller's "Authorization" and ours never go out as two headers.
 */
import type { AuthProvider } from "../auth/provider.js";

export type HeaderProvider = () => Record<string, string> | Promise<Record<string, string>>;
export type AuthOption = { token: string } | HeaderProvider | AuthProvider;

export function lowerCaseNames(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers) for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** The headers that never change: the caller's and a static bearer token, lower-cased once. */
export function fixedHeaders(headers: Record<string, string> | undefined, auth: AuthOption | undefined): Record<string, string> {
  const fixed = lowerCaseNames(headers);
  if (auth !== undefined && typeof auth === "object" && "token" in auth && typeof auth.token === "string") fixed.authorization = `Bearer ${auth.token}`;
  return fixed;
}
