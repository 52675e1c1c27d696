/**
 * The provider's decisions that need no server: what a fresh token costs, a stale token's refusal,
 * the step-up bounds (a challenge that asks for nothing new fails at once, as the conformance
 * scope-retry-limit scenario wants), and DPoP proofs with the server's nonce.
 */
import * as jose from "jose";
import { describe, expect, it } from "vitest";
import { DpopKey } from "../../src/auth/dpop.js";
import { memoryTokenStore, oauth, type StoredAuth } from "../../src/index.js";

const server = new URL("https://mcp.example.com/mcp");
const ISSUER = "https://as.example.com";
const noNetwork = async () => {
  throw new Error("no request may leave in this test");
};

async function seeded(auth: Partial<StoredAuth>, options: Parameters<typeof oauth>[0] = {}) {
  const store = memoryTokenStore();
  await store.update("https://mcp.example.com/mcp", ISSUER, () => ({ updatedAt: Date.now(), ...auth }));
  return oauth({ store, fetch: noNetwork, ...options });
}

const tokens = (scope: string) => ({
  accessToken: "at-1",
  tokenType: "bearer",
  scope,
  obtainedAt: Date.now(),
  expiresAt: Date.now() + 3_600_000,
  refreshToken: "rt-1",
});
const challenge = (status: 401 | 403, wwwAuthenticate: string, authorization = "Bearer at-1") => ({
  server,
  url: server,
  method: "POST",
  status,
  wwwAuthenticate,
  authorization,
});

describe("OAuthProvider without a network", () => {
  it("hands out one prepared object while the token is fresh (no await, no allocation)", async () => {
    const auth = await seeded({ tokens: tokens("mcp:read") });
    const first = await auth.headers({ server, url: server, method: "POST" });
    const second = auth.headers({ server, url: server, method: "POST" });
    expect(second).not.toBeInstanceOf(Promise);
    expect(second).toBe(first);
    expect(first).toEqual({ authorization: "Bearer at-1" });
  });

  it("a refusal of a token that has been replaced since is just retried", async () => {
    const auth = await seeded({ tokens: tokens("mcp:read") });
    await auth.headers({ server, url: server, method: "POST" });
    expect(await auth.handleChallenge(challenge(401, 'Bearer error="invalid_token"', "Bearer an-older-token"))).toBe("retry");
  });

  it("a step-up that would ask for nothing the token lacks fails at once", async () => {
    const auth = await seeded({ tokens: tokens("mcp:admin"), scope: "mcp:admin" });
    expect(await auth.handleChallenge(challenge(403, 'Bearer error="insufficient_scope", scope="mcp:admin"'))).toBe("fail");
  });

  it("maxStepUps bounds step-ups; a 403 that is not insufficient_scope is the server's answer", async () => {
    const auth = await seeded({ tokens: tokens("mcp:read") }, { maxStepUps: 0 });
    expect(await auth.handleChallenge(challenge(403, 'Bearer error="insufficient_scope", scope="mcp:admin"'))).toBe("fail");
    expect(await auth.handleChallenge(challenge(403, 'Bearer realm="x"'))).toBe("fail");
  });

  it("DPoP: a fresh proof per request, bound to the token, carrying the nonce the server asked for", async () => {
    const key = await DpopKey.generate();
    const auth = await seeded({ tokens: { ...tokens("mcp:read"), tokenType: "dpop" }, dpopKey: key.privateJwk });
    const url = new URL("https://mcp.example.com/mcp?ignored=1");
    const first = await auth.headers({ server, url, method: "POST" });
    const second = await auth.headers({ server, url, method: "POST" });
    expect(first.authorization).toBe("DPoP at-1");
    const verify = async (proof: string) => {
      const header = jose.decodeProtectedHeader(proof);
      expect(header.typ).toBe("dpop+jwt");
      expect(header.jwk).toEqual(key.publicJwk);
      return (await jose.jwtVerify(proof, await jose.importJWK(header.jwk!, "ES256"))).payload;
    };
    const claims = await verify(first.dpop);
    expect(claims).toMatchObject({
      htm: "POST",
      htu: "https://mcp.example.com/mcp",
      ath: jose.base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("at-1")))),
    });
    expect((await verify(second.dpop)).jti).not.toBe(claims.jti);
    expect(claims.nonce).toBeUndefined();
    expect(await auth.handleChallenge({ ...challenge(401, 'DPoP error="use_dpop_nonce"', "DPoP at-1"), dpopNonce: "n-42" })).toBe("retry");
    expect((await verify((await auth.headers({ server, url, method: "POST" })).dpop)).nonce).toBe("n-42");
  });

  it("a private DPoP key survives the store (JWK round trip)", async () => {
    const key = await DpopKey.generate();
    const again = await DpopKey.fromJwk(structuredClone(key.privateJwk));
    expect(again.publicJwk).toEqual(key.publicJwk);
    expect(key.privateJwk.d).toBeDefined();
    expect(key.publicJwk).not.toHaveProperty("d");
  });
});
