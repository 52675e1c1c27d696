/**
 * The token goes on every transport that speaks HTTP: the legacy SSE stream and its POSTs, and the
 * WebSocket upgrade, with the same challenge handling (the first attempt is refused with 401, the
 * provider authorizes, the same request goes again). And never to another origin.
 */
import { describe, expect, it } from "vitest";
import { connect, memoryTokenStore, oauth } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import type { ProtectedKind } from "./fixtures/protected-server.js";
import { MACHINE_CLIENT as MACHINE, startProtectedPair } from "./fixtures/setup.js";

const track = closeAfterEach();

async function authorizedOver(kind: ProtectedKind) {
  const { as, mcp } = await startProtectedPair(track, kind);
  const auth = oauth({ store: memoryTokenStore(), grant: "client_credentials", clientId: "machine", clientSecret: MACHINE.client_secret });
  const client = track(await connect({ url: mcp.url, type: kind, auth }));
  return { mcp, as, client };
}

describe("the bearer token on every HTTP-speaking transport", () => {
  it("legacy SSE: the event stream GET and every POST carry it", async () => {
    const { mcp, as, client } = await authorizedOver("sse");
    expect((await client.callTool("echo", { text: "sse" })).content).toEqual([{ type: "text", text: "sse" }]);
    expect(mcp.refusals.unauthorized).toBe(1); // the first GET, before authorization
    expect(as.grants).toEqual(["client_credentials"]);
    // The stream, initialize, initialized, tools/call (at least): all with the token.
    expect(mcp.accepted.length).toBeGreaterThanOrEqual(4);
    expect(new Set(mcp.accepted).size).toBe(1);
    expect(mcp.accepted[0]).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("WebSocket: the upgrade request carries it; a refused upgrade is authorized and tried again", async () => {
    const { mcp, as, client } = await authorizedOver("websocket");
    expect((await client.callTool("echo", { text: "ws" })).content).toEqual([{ type: "text", text: "ws" }]);
    expect(mcp.refusals.unauthorized).toBe(1);
    expect(as.grants).toEqual(["client_credentials"]);
    expect(mcp.accepted).toHaveLength(1);
    expect(mcp.accepted[0]).toMatch(/^Bearer /);
  });

  it("never hands the token to a request for another origin", async () => {
    const store = memoryTokenStore();
    await store.update("https://mcp.example.com/mcp", "https://as.example.com", () => ({
      tokens: { accessToken: "secret-token", tokenType: "bearer", obtainedAt: Date.now() },
      updatedAt: Date.now(),
    }));
    const auth = oauth({ store });
    const server = new URL("https://mcp.example.com/mcp");
    expect(await auth.headers({ server, url: server, method: "POST" })).toEqual({ authorization: "Bearer secret-token" });
    expect(await auth.headers({ server, url: new URL("https://mcp.example.com/messages?x=1"), method: "POST" })).toEqual({
      authorization: "Bearer secret-token",
    });
    expect(await auth.headers({ server, url: new URL("https://evil.example.com/mcp"), method: "POST" })).toEqual({});
    expect(await auth.headers({ server, url: new URL("http://mcp.example.com/mcp"), method: "POST" })).toEqual({});
    expect(
      await auth.handleChallenge({
        server,
        url: new URL("https://evil.example.com/mcp"),
        method: "POST",
        status: 401,
        wwwAuthenticate: 'Bearer resource_metadata="https://evil.example.com/x"',
      }),
    ).toBe("fail");
  });
});
