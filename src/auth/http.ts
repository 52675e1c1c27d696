/**
 * Requests to authorization servers and metadata endpoints: bounded by a timeout, through the
 * caller's `fetch` if given, and over plain http only to loopback hosts unless explicitly allowed
 * (OAuth 2.1 requires TLS for everything else). Responses are read as JSON only when they say so.
 */
import * as oauth from "oauth4webapi";
import { AuthorizationError } from "./errors.js";

export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface HttpSettings {
  fetch?: FetchLike | undefined;
  /** Per request (default 30000 ms). */
  timeoutMs?: number | undefined;
  /** Allow http:// authorization servers that are not on a loopback address (default false). */
  allowInsecureHttp?: boolean | undefined;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export function isLoopbackHost(url: URL): boolean {
  return LOOPBACK.has(url.hostname) || url.hostname.endsWith(".localhost") || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

/** Refuses (before sending anything) an http:// URL that is not loopback, unless allowed. */
export function checkTransportSecurity(url: URL, settings: HttpSettings, what: string): void {
  if (url.protocol === "https:") return;
  if (url.protocol !== "http:") throw new AuthorizationError(`${what} ${url.href} is not an http(s) URL`, { url: url.href });
  if (isLoopbackHost(url) || settings.allowInsecureHttp === true) return;
  throw new AuthorizationError(`${what} ${url.href} is plain http on a non-loopback host; OAuth needs https (set allowInsecureHttp to override)`, {
    url: url.href,
  });
}

/** A GET for metadata (JSON), with the timeout. Network failures become AuthorizationErrors naming the URL. */
export async function getJson(url: URL, settings: HttpSettings, headers: Record<string, string> = {}): Promise<Response> {
  checkTransportSecurity(url, settings, "Metadata URL");
  const fetchFn = settings.fetch ?? fetch;
  try {
    return await fetchFn(url, {
      headers: { accept: "application/json", ...headers },
      redirect: "manual",
      signal: AbortSignal.timeout(settings.timeoutMs ?? 30_000),
    });
  } catch (error) {
    throw new AuthorizationError(`GET ${url.href} failed: ${describeFetchError(error)}`, { url: url.href, cause: error });
  }
}

/** The JSON object of a 200 response, or undefined when it is not JSON (or not an object). */
export async function jsonObject(response: Response): Promise<Record<string, unknown> | undefined> {
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  const type = response.headers.get("content-type") ?? "";
  if (!/\bjson\b/i.test(type)) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  try {
    const value: unknown = await response.json();
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** oauth4webapi request options: our fetch and timeout, and http allowed where checkTransportSecurity allows it. */
export function oauthRequestOptions(
  endpoint: URL | string | undefined,
  settings: HttpSettings,
): {
  [oauth.customFetch]: (url: string, init: RequestInit) => Promise<Response>;
  [oauth.allowInsecureRequests]: boolean;
  signal: AbortSignal;
} {
  const fetchFn = settings.fetch ?? fetch;
  let insecureOk = settings.allowInsecureHttp === true;
  if (!insecureOk && endpoint !== undefined) {
    try {
      insecureOk = isLoopbackHost(new URL(endpoint));
    } catch {
      insecureOk = false;
    }
  }
  return {
    [oauth.customFetch]: (url: string, init: RequestInit) => fetchFn(url, { ...init, redirect: "manual" }),
    [oauth.allowInsecureRequests]: insecureOk,
    signal: AbortSignal.timeout(settings.timeoutMs ?? 30_000),
  };
}

export function describeFetchError(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError") return "no answer in time";
  const code = e?.cause?.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `host not found (${code})`;
  return e?.cause?.message ?? e?.message ?? String(error);
}
