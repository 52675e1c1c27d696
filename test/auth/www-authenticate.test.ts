/** WWW-Authenticate parsing: generated challenges round-trip (fast-check), and the shapes servers send. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { oauthChallenge, parseWwwAuthenticate } from "../../src/auth/www-authenticate.js";

const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.-]{0,11}$/);
const value = fc.string({ maxLength: 40 }).filter((s) => !/[\r\n]/.test(s));
const challenge = fc.record({
  scheme: token,
  params: fc.dictionary(
    token.map((t) => t.toLowerCase()),
    fc.record({ value, quoted: fc.boolean() }),
    { maxKeys: 4 },
  ),
});

function quote(text: string): string {
  return `"${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function serialize(challenges: Array<{ scheme: string; params: Record<string, { value: string; quoted: boolean }> }>): string {
  return challenges
    .map(({ scheme, params }) => {
      const list = Object.entries(params).map(([name, { value: v, quoted }]) => `${name}=${quoted || !/^[A-Za-z0-9_.-]+$/.test(v) ? quote(v) : v}`);
      return list.length === 0 ? scheme : `${scheme} ${list.join(", ")}`;
    })
    .join(", ");
}

describe("parseWwwAuthenticate", () => {
  it("round-trips any list of challenges with token and quoted-string parameters", () => {
    fc.assert(
      fc.property(fc.array(challenge, { minLength: 1, maxLength: 4 }), (challenges) => {
        const parsed = parseWwwAuthenticate(serialize(challenges));
        expect(parsed.map((c) => c.scheme)).toEqual(challenges.map((c) => c.scheme.toLowerCase()));
        parsed.forEach((c, i) => expect({ ...c.params }).toEqual(Object.fromEntries(Object.entries(challenges[i].params).map(([k, v]) => [k, v.value]))));
      }),
    );
  });

  it("never throws on arbitrary text", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => void parseWwwAuthenticate(text)));
  });

  it("reads the challenges MCP servers send", () => {
    const header =
      'Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", error_description="needs \\"write\\""';
    const [bearer] = parseWwwAuthenticate(header);
    expect(bearer.scheme).toBe("bearer");
    expect(bearer.params.scope).toBe("mcp:read mcp:write");
    expect(bearer.params.error_description).toBe('needs "write"');
    expect(parseWwwAuthenticate("Basic abc123==, Bearer realm=api")).toEqual([
      { scheme: "basic", params: {}, token68: "abc123==" },
      { scheme: "bearer", params: { realm: "api" } },
    ]);
    // A DPoP nonce challenge beside a plain Bearer one: the one with the error is acted on.
    const chosen = oauthChallenge(parseWwwAuthenticate('Bearer realm="x", DPoP error="use_dpop_nonce", algs="ES256"'));
    expect(chosen?.scheme).toBe("dpop");
    expect(oauthChallenge(parseWwwAuthenticate('Negotiate, Basic realm="x"'))).toBeUndefined();
  });
});
