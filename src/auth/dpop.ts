/**
 * DPoP (RFC 9449): a key pair per (server, issuer), kept with the tokens bound to it; a fresh proof
 * JWT for every request to the MCP server (`htm`, `htu` without query or fragment, `iat`, a unique
 * `jti`, `ath` = the token's SHA-256, and the server's latest nonce); the nonces servers hand out,
 * remembered per origin. Proofs for token requests come from oauth4webapi's DPoP handle (`tokenHandle`),
 * which tracks the authorization server's nonce the same way.
 */
import { createHash, randomUUID } from "node:crypto";
import * as jose from "jose";
import * as oauth from "oauth4webapi";

export const DPOP_ALGORITHM = "ES256";

export class DpopKey {
  private handle: oauth.DPoPHandle | undefined;
  private readonly nonces = new Map<string, string>();

  private constructor(
    readonly keyPair: oauth.CryptoKeyPair,
    readonly publicJwk: jose.JWK,
    readonly privateJwk: jose.JWK,
  ) {}

  static async generate(): Promise<DpopKey> {
    const keyPair = await jose.generateKeyPair(DPOP_ALGORITHM, { extractable: true });
    return DpopKey.fromPair(keyPair);
  }

  /** Restores a key kept in a token store (a private JWK). */
  static async fromJwk(privateJwk: jose.JWK): Promise<DpopKey> {
    const { d: _private, ...publicPart } = privateJwk;
    const privateKey = (await jose.importJWK({ ...privateJwk, ext: true }, DPOP_ALGORITHM)) as unknown as oauth.CryptoKey;
    const publicKey = (await jose.importJWK({ ...publicPart, ext: true }, DPOP_ALGORITHM)) as unknown as oauth.CryptoKey;
    return DpopKey.fromPair({ privateKey, publicKey });
  }

  private static async fromPair(keyPair: oauth.CryptoKeyPair): Promise<DpopKey> {
    const publicJwk = await jose.exportJWK(keyPair.publicKey);
    const privateJwk = await jose.exportJWK(keyPair.privateKey);
    const { kty, crv, x, y } = publicJwk;
    if (kty === undefined || crv === undefined || x === undefined || y === undefined) throw new Error("DPoP: the key pair is not an EC key");
    return new DpopKey(keyPair, { kty, crv, x, y }, { ...privateJwk, alg: DPOP_ALGORITHM });
  }

  /** The oauth4webapi handle for token endpoint requests (one per key, so it keeps the AS nonce). */
  tokenHandle(): oauth.DPoPHandle {
    this.handle ??= oauth.DPoP({}, this.keyPair);
    return this.handle;
  }

  rememberNonce(url: URL, nonce: string): void {
    this.nonces.set(url.origin, nonce);
  }

  /** The proof for one request to the resource server carrying `accessToken`. */
  proof(method: string, url: URL, accessToken: string): Promise<string> {
    const htu = `${url.origin}${url.pathname}`;
    const claims: jose.JWTPayload = {
      htm: method,
      htu,
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      ath: createHash("sha256").update(accessToken, "ascii").digest("base64url"),
    };
    const nonce = this.nonces.get(url.origin);
    if (nonce !== undefined) claims.nonce = nonce;
    return new jose.SignJWT(claims).setProtectedHeader({ alg: DPOP_ALGORITHM, typ: "dpop+jwt", jwk: this.publicJwk }).sign(this.keyPair.privateKey);
  }
}
