/**
 * Headers for the network transports: the `auth` option of URL targets (a bearer token, or a function
 * returning headers, called for each HTTP request since tokens rotate, and once per WebSocket
 * handshake), and header names folded to lower case once, so a caller's "Authorization" and ours never
 * go out as two headers.
 */
export type HeaderProvider = () => Record<string, string> | Promise<Record<string, string>>;
export type AuthOption = { token: string } | HeaderProvider;

export async function authHeaders(auth: AuthOption | undefined): Promise<Record<string, string>> {
  if (auth === undefined) return {};
  if (typeof auth === "function") return lowerCaseNames(await auth());
  return { authorization: `Bearer ${auth.token}` };
}

export function lowerCaseNames(headers: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers) for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}
