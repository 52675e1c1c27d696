/**
 * Authorization for the HTTP-speaking transports, in one place: the headers a request adds for its
 * `auth` option (a static token is in the transport's fixed headers already; a header function is
 * called per request; an `AuthProvider` is asked per request), and, for a provider, the challenge
 * loop: a 401 or 403 goes to `handleChallenge`, and on "retry" the same request is sent again (it was
 * refused, so it never ran), at most MAX_AUTH_ROUNDS times (401 → authorize → 403 → step up → ok).
 */
import { isAuthProvider, type AuthChallenge, type AuthProvider } from "../auth/provider.js";
import { lowerCaseNames, type AuthOption } from "./auth.js";
import { headerValue, httpExchange, type HttpRequestOptions, type HttpResponse } from "./http-client.js";

export const MAX_AUTH_ROUNDS = 3;

const NONE: Record<string, string> = Object.freeze({});

/** The per-request auth headers (lower-case names), beyond a static token. */
export function requestAuthHeaders(
  auth: AuthOption | undefined,
  server: URL,
  url: URL,
  method: string,
): Record<string, string> | Promise<Record<string, string>> {
  if (auth === undefined || (!isAuthProvider(auth) && typeof auth !== "function")) return NONE;
  if (isAuthProvider(auth)) return auth.headers({ server, url, method });
  return Promise.resolve(auth()).then(lowerCaseNames);
}

/** `headers` plus the auth ones, in a new object only when there are some (httpRequest adds content-length to it). */
export function withAuth(headers: Record<string, string>, auth: Record<string, string>): Record<string, string> {
  for (const _name in auth) return { ...headers, ...auth };
  return headers;
}

/** Whether `auth` adds headers per request (a function or a provider); a static token is a fixed header. */
export function authPerRequest(auth: AuthOption | undefined): boolean {
  return auth !== undefined && !(typeof auth === "object" && "token" in auth);
}

/**
 * A request with a credential of its own (RequestOptions.auth: another user's, on a shared 2026
 * connection): the connection's Authorization leaves `headers`, a static token of its own goes in;
 * returns the auth to send with.
 */
export function ownCredential(headers: Record<string, string>, auth: AuthOption): AuthOption {
  delete headers.authorization;
  if (typeof auth === "object" && "token" in auth) headers.authorization = `Bearer ${auth.token}`;
  return auth;
}

/**
 * `httpExchange` (the request and its same-origin redirects; `moved` hears the final URL) with the auth
 * of `auth` for the endpoint `server`: what the transports call at each request point. No auth or a
 * static token (in `options.headers` already) is a plain exchange.
 */
export function authorizedRequest(
  auth: AuthOption | undefined,
  server: URL,
  options: HttpRequestOptions,
  moved: (url: URL) => void = ignore,
): Promise<HttpResponse> {
  if (!authPerRequest(auth)) return httpExchange(options, moved);
  return sendWithAuth(auth, server, options.url, options.method, (added) => httpExchange({ ...options, headers: withAuth(options.headers, added) }, moved));
}

function ignore(): void {}

/**
 * Sends one request with its auth headers (`send` merges them into the rest); with a provider, acts
 * on refusals as described above. Resolves with the final response, whatever its status.
 */
function sendWithAuth(
  auth: AuthOption | undefined,
  server: URL,
  url: URL,
  method: string,
  send: (authHeaders: Record<string, string>) => Promise<HttpResponse>,
): Promise<HttpResponse> {
  if (!isAuthProvider(auth)) {
    const added = requestAuthHeaders(auth, server, url, method);
    return added === NONE ? send(NONE) : Promise.resolve(added).then(send);
  }
  return challengeLoop(auth, server, url, method, send);
}

async function challengeLoop(
  auth: AuthProvider,
  server: URL,
  url: URL,
  method: string,
  send: (authHeaders: Record<string, string>) => Promise<HttpResponse>,
): Promise<HttpResponse> {
  for (let round = 0; ; round++) {
    const added = auth.headers({ server, url, method });
    const headers = added instanceof Promise ? await added : added;
    const response = await send(headers);
    const status = response.statusCode;
    // The usual answer costs no further await.
    if ((status !== 401 && status !== 403) || !(await retryAfterRefusal(auth, response, server, url, method, headers.authorization, round))) return response;
  }
}

/** A refusal as both HTTP stacks give it: ours (undici) and a WebSocket handshake's (node:http). */
export interface RefusedResponse {
  statusCode?: number | undefined;
  headers: Record<string, string | string[] | undefined>;
  resume(): void;
}

/**
 * For a refused request (401/403) and a provider: asks it what to do. true means "send it again" (the
 * response is drained); false leaves the response for the caller to report. Rethrows what the
 * provider throws (AuthRequiredError), after draining.
 */
export async function retryAfterRefusal(
  auth: AuthOption | undefined,
  response: RefusedResponse,
  server: URL,
  url: URL,
  method: string,
  sentAuthorization: string | undefined,
  round: number,
): Promise<boolean> {
  const status = response.statusCode ?? 0;
  if ((status !== 401 && status !== 403) || !isAuthProvider(auth) || round >= MAX_AUTH_ROUNDS) return false;
  const challenge: AuthChallenge = {
    server,
    url,
    method,
    status,
    wwwAuthenticate: headerValue(response, "www-authenticate"),
    dpopNonce: headerValue(response, "dpop-nonce"),
    authorization: sentAuthorization,
  };
  let verdict;
  try {
    verdict = await auth.handleChallenge(challenge);
  } catch (error) {
    response.resume();
    throw error;
  }
  if (verdict !== "retry") return false;
  response.resume();
  return true;
}
