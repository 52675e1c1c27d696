/**
 * Tokens, codes, verifiers and client secrets never appear in an error message, an event, or the
 * errors a connection reports: every secret that crosses the wire to the authorization server is
 * captured (through the provider's fetch) and looked for in all of them, across flows that succeed
 * and flows that fail.
 */
import { describe, expect, it } from "vitest";
import { AuthorizationError, AuthRequiredError, connect, memoryTokenStore, oauth, type OAuthEvent, type OAuthOptions } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { browse } from "./fixtures/authorization-server.js";
import { MACHINE_CLIENT, startProtectedPair } from "./fixtures/setup.js";

const track = closeAfterEach();

/** A fetch that records every secret the OAuth exchange carries, both ways. */
function recordingFetch(secrets: Set<string>): typeof fetch {
  const keep = (value: unknown) => {
    if (typeof value === "string" && value.length >= 8) secrets.add(value);
  };
  return async (input, init) => {
    if (typeof init?.body === "string" || init?.body instanceof URLSearchParams) {
      const params = new URLSearchParams(init.body);
      for (const name of ["code", "code_verifier", "refresh_token", "client_secret", "assertion", "client_assertion"]) keep(params.get(name));
    }
    const response = await fetch(input, init);
    if ((response.headers.get("content-type") ?? "").includes("json")) {
      const body = (await response
        .clone()
        .json()
        .catch(() => ({}))) as Record<string, unknown>;
      for (const name of ["access_token", "refresh_token", "client_secret", "id_token"]) keep(body[name]);
    }
    const location = response.headers.get("location");
    if (location !== null) keep(new URL(location, String(input)).searchParams.get("code"));
    return response;
  };
}

function everything(error: unknown, events: OAuthEvent[], reported: Error[]): string {
  const parts: string[] = [JSON.stringify(events), ...reported.map((e) => `${e.message} ${String(e.stack)}`)];
  for (let e = error as (Error & { cause?: unknown }) | undefined, depth = 0; e !== undefined && depth < 10; e = e.cause as typeof e, depth++) {
    parts.push(String(e), e.message ?? "", String(e.stack), JSON.stringify(e, Object.getOwnPropertyNames(e)));
  }
  return parts.join("\n");
}

describe("secrets stay out of errors and events", () => {
  it("a full authorization, then a revoked refresh token meeting a headless provider", async () => {
    const { as, mcp } = await startProtectedPair(track);
    const secrets = new Set<string>();
    const events: OAuthEvent[] = [];
    const store = memoryTokenStore();
    const options: OAuthOptions = { store, fetch: recordingFetch(secrets), onEvent: (e) => events.push(e) };
    const first = track(
      await connect({ url: mcp.url, auth: oauth({ ...options, loopback: true, onAuthorizationUrl: async (url) => void (await browse(url)) }) }),
    );
    await first.callTool("echo", { text: "x" });
    const stored = await store.get(mcp.resource, as.issuer);
    await as.revokeRefreshToken(stored!.tokens!.refreshToken!);
    mcp.refuseSeenTokens();
    await first.close();
    const reported: Error[] = [];
    const failure = await connect({ url: mcp.url, auth: oauth({ ...options, redirectUri: "http://127.0.0.1:1/cb" }) }, { protocol: "legacy" }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(AuthRequiredError);
    expect(secrets.size).toBeGreaterThanOrEqual(4); // code, verifier, access token, refresh token (at least)
    const text = everything(failure, events, reported);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });

  it("a wrong client secret: the token endpoint's refusal names the server, not the secret", async () => {
    const { as, mcp } = await startProtectedPair(track);
    const secrets = new Set<string>(["not-the-machine-secret", MACHINE_CLIENT.client_secret]);
    const events: OAuthEvent[] = [];
    const auth = oauth({
      store: memoryTokenStore(),
      grant: "client_credentials",
      clientId: "machine",
      clientSecret: "not-the-machine-secret",
      fetch: recordingFetch(secrets),
      onEvent: (e) => events.push(e),
    });
    const failure = await connect({ url: mcp.url, auth }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthorizationError);
    expect((failure as AuthorizationError).oauthError).toBe("invalid_client");
    expect((failure as Error).message).toContain(`${as.issuer}/token`);
    const text = everything(failure, events, []);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
