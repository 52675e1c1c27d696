/** The authorization layer's public names (re-exported by src/index.ts). */
export { oauth, OAuthProvider, type OAuthOptions, type OAuthEvent } from "./oauth.js";
export type { EnterpriseOptions, AuthorizationUrlInfo, Supplier } from "./options.js";
export type { AuthProvider, AuthRequest, AuthChallenge, ChallengeVerdict } from "./provider.js";
export { isAuthProvider } from "./provider.js";
export { AuthRequiredError, AuthorizationError } from "./errors.js";
export { memoryTokenStore, type TokenStore, type StoredAuth, type StoredTokens, type StoredClient, type StoreChange } from "./token-store.js";
export { fileTokenStore, defaultTokenFile } from "./file-token-store.js";
export type { LoopbackOptions } from "./loopback.js";
export { oauthFromConfig, type OAuthConfig } from "./config.js";
