/**
 * The MCP discovery order, against an HTTP server that answers from a table and records every path
 * asked for (the conformance runner checks the same against its own servers).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { canonicalServerUri, discoverAuthorizationServer, discoverServer, metadataUrls, resourceAllowed } from "../../src/auth/discovery.js";
import { AuthorizationError } from "../../src/auth/errors.js";
import { closeAfterEach } from "../helpers/close-after-each.js";

const track = closeAfterEach();

type Route = { status?: number; json?: unknown; text?: string };

async function table(routes: (base: string) => Record<string, Route>) {
  const asked: string[] = [];
  let answers: Record<string, Route> = {};
  const server = http.createServer((req, res) => {
    asked.push(req.url!);
    const route = answers[req.url!];
    if (route === undefined) return void res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not_found"}');
    if (route.text !== undefined) return void res.writeHead(route.status ?? 200, { "content-type": "text/html" }).end(route.text);
    res.writeHead(route.status ?? 200, { "content-type": "application/json" }).end(JSON.stringify(route.json));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  answers = routes(base);
  track({ close: () => new Promise<void>((resolve) => server.close(() => resolve())) });
  return { base, asked };
}

const metadata = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}/authorize`,
  token_endpoint: `${issuer}/token`,
  code_challenge_methods_supported: ["S256"],
});

describe("authorization server metadata", () => {
  it("an issuer without a path: RFC 8414, then OpenID discovery", async () => {
    const { base, asked } = await table((b) => ({ "/.well-known/openid-configuration": { json: metadata(b) } }));
    expect((await discoverAuthorizationServer(base, {}))?.issuer).toBe(base);
    expect(asked).toEqual(["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]);
  });

  it("an issuer with a path: the three path-aware URLs in order, never the root", async () => {
    const { base, asked } = await table((b) => ({ "/tenant1/.well-known/openid-configuration": { json: metadata(`${b}/tenant1`) } }));
    expect((await discoverAuthorizationServer(`${base}/tenant1`, {}))?.issuer).toBe(`${base}/tenant1`);
    expect(asked).toEqual([
      "/.well-known/oauth-authorization-server/tenant1",
      "/.well-known/openid-configuration/tenant1",
      "/tenant1/.well-known/openid-configuration",
    ]);
    expect(metadataUrls("https://as.example.com/a/b/").map((u) => u.pathname)).toEqual([
      "/.well-known/oauth-authorization-server/a/b",
      "/.well-known/openid-configuration/a/b",
      "/a/b/.well-known/openid-configuration",
    ]);
  });

  it("falls through on any 4xx and on a 200 that is not JSON metadata; a 5xx is an error", async () => {
    const { base } = await table(() => ({
      "/.well-known/oauth-authorization-server": { status: 400, json: { error: "invalid_request" } },
      "/.well-known/openid-configuration": { text: "<html>login</html>" },
    }));
    expect(await discoverAuthorizationServer(base, {})).toBeUndefined();
    const failing = await table(() => ({ "/.well-known/oauth-authorization-server": { status: 503, json: {} } }));
    await expect(discoverAuthorizationServer(failing.base, {})).rejects.toThrow(/answered HTTP 503/);
  });

  it("refuses a document whose issuer is not the one asked for (RFC 8414 §3.3)", async () => {
    const { base } = await table(() => ({ "/.well-known/oauth-authorization-server": { json: metadata("https://attacker.example.com") } }));
    await expect(discoverAuthorizationServer(base, {})).rejects.toThrow(/names the issuer https:\/\/attacker\.example\.com/);
  });
});

describe("protected resource metadata", () => {
  it("the challenge's resource_metadata first, then the path-aware and root well-known URLs", async () => {
    const { base, asked } = await table((b) => ({
      "/.well-known/oauth-protected-resource": { json: { resource: b, authorization_servers: [b] } },
      "/.well-known/oauth-authorization-server": { json: metadata(b) },
    }));
    const found = await discoverServer(new URL(`${base}/mcp`), `${base}/custom/prm.json`, {});
    expect(asked.slice(0, 3)).toEqual(["/custom/prm.json", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]);
    expect(found.resource).toBe(base); // the root resource covers /mcp
    expect(found.issuer).toBe(base);
  });

  it("refuses metadata for another resource: no authorization server is even asked", async () => {
    const { base, asked } = await table(() => ({
      "/.well-known/oauth-protected-resource/mcp": { json: { resource: "https://evil.example.com/mcp", authorization_servers: ["https://evil.example.com"] } },
    }));
    const error = await discoverServer(new URL(`${base}/mcp`), undefined, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthorizationError);
    expect((error as Error).message).toContain("is for https://evil.example.com/mcp");
    expect(asked).toEqual(["/.well-known/oauth-protected-resource/mcp"]);
  });

  it("no protected resource metadata (2025-03-26): metadata at the origin, else the default endpoints there", async () => {
    const { base } = await table(() => ({}));
    const found = await discoverServer(new URL(`${base}/mcp`), undefined, {});
    expect(found.assumedEndpoints).toBe(true);
    expect(found.metadata.token_endpoint).toBe(`${base}/token`);
    expect(found.resource).toBe(`${base}/mcp`);
  });
});

describe("resource identity", () => {
  it("canonical URIs and what a resource covers", () => {
    expect(canonicalServerUri(new URL("HTTPS://MCP.Example.com:443/mcp/?x=1#f"))).toBe("https://mcp.example.com/mcp");
    expect(canonicalServerUri(new URL("wss://mcp.example.com/"))).toBe("https://mcp.example.com");
    expect(resourceAllowed("https://a.example/mcp", "https://a.example")).toBe(true);
    expect(resourceAllowed("https://a.example/mcp/x", "https://a.example/mcp")).toBe(true);
    expect(resourceAllowed("https://a.example/mcpx", "https://a.example/mcp")).toBe(false);
    expect(resourceAllowed("https://a.example/mcp", "https://b.example/mcp")).toBe(false);
    expect(resourceAllowed("https://a.example/mcp", "http://a.example/mcp")).toBe(false);
  });
});
