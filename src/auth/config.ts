/**
 * The `oauth` object of an `mcp.json` entry: the JSON-expressible subset of `oauth()`'s options, plus
 * where its credentials are kept (`tokenFile`, by default the file `mcp-switchboard login` writes) and
 * the loopback port `login` listens on. A Switchboard builds one provider per entry from it.
 */
import { defaultTokenFile, fileTokenStore } from "./file-token-store.js";
import { oauth, type OAuthProvider } from "./oauth.js";
import type { OAuthOptions } from "./options.js";

export interface OAuthConfig {
  clientId?: string;
  clientSecret?: string;
  clientMetadataUrl?: string;
  clientName?: string;
  scope?: string;
  redirectUri?: string;
  grant?: "authorization_code" | "client_credentials";
  /** PKCS#8 PEM private key for private_key_jwt (use `${VAR}` to keep it out of the file). */
  privateKey?: string;
  signingAlgorithm?: string;
  tokenEndpointAuthMethod?: "none" | "client_secret_basic" | "client_secret_post" | "private_key_jwt";
  applicationType?: "native" | "web";
  dpop?: boolean;
  authorizationServer?: string;
  /** Where the credentials are kept (default ~/.mcp-switchboard/tokens.json). */
  tokenFile?: string;
  /** The port `mcp-switchboard login` receives the callback on (default: a free one). */
  loopbackPort?: number;
}

export const OAUTH_CONFIG_GRANTS = ["authorization_code", "client_credentials"] as const;
export const OAUTH_CONFIG_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post", "private_key_jwt"] as const;

/** The provider for an entry's `oauth` object; `extra` adds what only code can give (handlers, a loopback). */
export function oauthFromConfig(config: OAuthConfig, extra: Partial<OAuthOptions> = {}): OAuthProvider {
  const { tokenFile, loopbackPort: _port, ...options } = config;
  return oauth({ ...options, store: fileTokenStore(tokenFile ?? defaultTokenFile()), ...extra });
}
