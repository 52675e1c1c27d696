/**
 * The whole flow against an authorization server nobody here wrote (oidc-provider) and the SDK's MCP
 * server behind it: discovery, dynamic registration, PKCE, consent, tokens; refresh before expiry and
 * on a 401; step-up on 403 insufficient_scope; a revoked refresh token; and what a headless host gets.
 */
import { describe, expect, it } from "vitest";
import { AuthRequiredError, connect, memoryTokenStore, oauth, type OAuthEvent, type OAuthOptions } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { browse } from "./fixtures/authorization-server.js";
import { startProtectedPair } from "./fixtures/setup.js";

const track = closeAfterEach();
const setup = (accessTokenTtl?: number) => startProtectedPair(track, "streamable-http", { accessTokenTtl });

/** A person at a browser: consents, and the browser lands on the loopback listener. */
const person = async (url: URL) => {
  await browse(url);
};

function interactive(extra: OAuthOptions = {}): OAuthOptions {
  return { store: memoryTokenStore(), loopback: { timeoutMs: 20_000 }, onAuthorizationUrl: person, ...extra };
}

describe("oauth() against oidc-provider", () => {
  it("discovers, registers, authorizes with PKCE through the loopback listener, and calls tools", async () => {
    const { as, mcp } = await setup();
    const events: OAuthEvent[] = [];
    const client = track(await connect({ url: mcp.url, auth: oauth(interactive({ onEvent: (e) => events.push(e) })) }));
    const result = await client.callTool("echo", { text: "hi" });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    expect(as.registrations).toBe(1);
    expect(as.grants).toEqual(["authorization_code"]);
    const authorization = as.authorizations[0];
    expect(authorization.get("code_challenge_method")).toBe("S256");
    expect(authorization.get("resource")).toBe(mcp.resource);
    // The challenge's scope, and offline_access because this server lists it.
    expect(authorization.get("scope")?.split(" ").sort()).toEqual(["mcp:read", "offline_access"]);
    expect(new URL(authorization.get("redirect_uri")!).hostname).toBe("127.0.0.1");
    expect(events.map((e) => e.type)).toEqual(["discovered", "authorization-required", "registered", "authorized"]);
    expect(mcp.accepted.every((header) => header.startsWith("Bearer "))).toBe(true);
  });

  it("refreshes shortly before the access token expires, without a 401", async () => {
    const { as, mcp } = await setup(2);
    const client = track(await connect({ url: mcp.url, auth: oauth(interactive()) }));
    await client.callTool("echo", { text: "first" });
    const unauthorized = mcp.refusals.unauthorized;
    // Within the last tenth of a 2 s lifetime (and past it).
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await client.callTool("echo", { text: "second" });
    expect(as.grants).toEqual(["authorization_code", "refresh_token"]);
    expect(mcp.refusals.unauthorized).toBe(unauthorized);
  });

  it("refreshes on a 401 for a token the server stopped accepting, and retries the call", async () => {
    const { as, mcp } = await setup();
    const client = track(await connect({ url: mcp.url, auth: oauth(interactive()) }));
    await client.callTool("echo", { text: "first" });
    mcp.refuseSeenTokens();
    const result = await client.callTool("echo", { text: "again" });
    expect(result.content).toEqual([{ type: "text", text: "again" }]);
    expect(as.grants).toEqual(["authorization_code", "refresh_token"]);
  });

  it("steps up on 403 insufficient_scope, asking for the granted scope plus the challenged one", async () => {
    const { as, mcp } = await setup();
    const client = track(await connect({ url: mcp.url, auth: oauth(interactive()) }));
    expect((await client.callTool("add", { a: 2, b: 3 })).content).toEqual([{ type: "text", text: "5" }]);
    expect(as.authorizations).toHaveLength(2);
    expect(as.authorizations[1].get("scope")?.split(" ").sort()).toEqual(["mcp:admin", "mcp:read", "offline_access"]);
    expect(mcp.refusals.forbidden).toBe(1);
  });

  it("a revoked refresh token sends an interactive client through authorization again", async () => {
    const { as, mcp } = await setup();
    const store = memoryTokenStore();
    const client = track(await connect({ url: mcp.url, auth: oauth(interactive({ store })) }));
    await client.callTool("echo", { text: "first" });
    const stored = await store.get(mcp.resource, as.issuer);
    await as.revokeRefreshToken(stored!.tokens!.refreshToken!);
    mcp.refuseSeenTokens();
    await client.callTool("echo", { text: "again" });
    expect(as.grantErrors).toEqual(["invalid_grant"]);
    expect(as.authorizations).toHaveLength(2);
  });

  it("a headless client meets AuthRequiredError with the URL, and finishes with the callback later", async () => {
    const { mcp } = await setup();
    const redirectUri = "http://127.0.0.1:1/callback";
    const provider = oauth({ store: memoryTokenStore(), redirectUri });
    const failure = await connect({ url: mcp.url, auth: provider }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthRequiredError);
    const required = failure as AuthRequiredError;
    expect(required.retryable).toBe(false);
    expect(required.authorizationUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/auth\?/);
    // The user consents elsewhere; the browser ends at the host's redirect URI.
    const callback = await browse(required.authorizationUrl!, redirectUri);
    await provider.finishAuthorization(callback);
    const client = track(await connect({ url: mcp.url, auth: provider }));
    expect((await client.callTool("echo", { text: "later" })).content).toEqual([{ type: "text", text: "later" }]);
    // A callback is good once: the verifier is gone.
    await expect(provider.finishAuthorization(callback)).rejects.toThrow(/No authorization with this state is pending/);
  });

  it("without a redirect URI, loopback or handler, AuthRequiredError says what to do", async () => {
    const { mcp } = await setup();
    const failure = await connect({ url: mcp.url, auth: oauth({ store: memoryTokenStore() }) }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AuthRequiredError);
    expect((failure as Error).message).toContain("mcp-switchboard login");
    expect((failure as AuthRequiredError).authorizationUrl).toBeUndefined();
  });
});
