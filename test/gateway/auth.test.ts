import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it, vi } from "vitest";
import { echo, gatewaysAfterEach, initialize, post } from "./helpers.js";

const { serve, sdkClient, track } = gatewaysAfterEach();
const shared = { servers: { echo: { ...echo, shared: true } } };

describe("auth in front of the gateway", () => {
  it("no valid bearer: 401 naming the protected resource metadata, which is served (RFC 9728)", async () => {
    const gateway = await serve(shared, { auth: { apiKeys: { "key-of-ada": "ada" } } });
    const anonymous = await post(gateway.url, initialize);
    expect(anonymous.status).toBe(401);
    const origin = new URL(gateway.url).origin;
    expect(anonymous.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    const wrong = await post(gateway.url, initialize, { authorization: "Bearer not-a-key" });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const metadata = await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`);
    expect(await metadata.json()).toEqual({ resource: gateway.url, bearer_methods_supported: ["header"] });
    const client = await sdkClient(gateway.url, { authorization: "Bearer key-of-ada" });
    expect((await client.callTool({ name: "echo__echo", arguments: { text: "in" } })).content).toEqual([{ type: "text", text: "in" }]);
  });

  it("the token's principal is the principal of the board's calls, and a session is its opener's alone", async () => {
    const gateway = await serve(shared, { auth: { verify: (token) => ({ t1: "ada", t2: "bob" })[token] } });
    const calls = vi.spyOn(gateway.board, "callTool");
    const ada = await sdkClient(gateway.url, { authorization: "Bearer t1" });
    await ada.callTool({ name: "echo__add", arguments: { a: 1, b: 1 } });
    expect(calls.mock.calls[0]?.[2]).toMatchObject({ principal: "ada" });
    const adaSession = (ada.transport as { sessionId?: string }).sessionId!;
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" });
    expect((await post(gateway.url, ping, { authorization: "Bearer t2", "mcp-session-id": adaSession })).status).toBe(404);
    expect((await post(gateway.url, ping, { authorization: "Bearer t1", "mcp-session-id": adaSession })).status).toBe(200);
  });

  it("JWTs are checked against the issuer's keys and audience; the principal is the sub claim", async () => {
    const { publicKey, privateKey } = await generateKeyPair("RS256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256" };
    const jwks = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((resolve) => jwks.listen(0, "127.0.0.1", resolve));
    track({ close: () => new Promise<void>((resolve) => jwks.close(() => resolve())) });
    const issuer = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}`;
    const token = (audience: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject("ada")
        .setExpirationTime("5m")
        .sign(privateKey);
    const gateway = await serve(shared, { auth: { jwt: { issuer, audience: "gateway", jwksUrl: `${issuer}/jwks` } } });
    const calls = vi.spyOn(gateway.board, "callTool");
    expect((await post(gateway.url, initialize, { authorization: `Bearer ${await token("someone-else")}` })).status).toBe(401);
    const client = await sdkClient(gateway.url, { authorization: `Bearer ${await token("gateway")}` });
    await client.callTool({ name: "echo__echo", arguments: { text: "x" } });
    expect(calls.mock.calls[0]?.[2]).toMatchObject({ principal: "ada" });
    const metadata = await fetch(new URL("/.well-known/oauth-protected-resource/mcp", gateway.url));
    expect(await metadata.json()).toMatchObject({ authorization_servers: [issuer] });
  });
});
