/**
 * The `auth` option of URL targets: a bearer token, or a function returning headers. The function is
 * called for each HTTP request (tokens rotate), and once per WebSocket handshake.
 */
import type { HeaderProvider } from "./streamable-http.js";

export type AuthOption = { token: string } | HeaderProvider;

export async function authHeaders(auth: AuthOption | undefined): Promise<Record<string, string>> {
  if (auth === undefined) return {};
  if (typeof auth === "function") return lowerCaseNames(await auth());
  return { authorization: `Bearer ${auth.token}` };
}

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}
