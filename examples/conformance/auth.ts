/**
 * The authorization scenarios of the official conformance runner (0.1.16 and 0.2.0-alpha.12), through
 * the public API only: `connect({ url, auth: oauth({...}) })`. The runner's authorization endpoint
 * redirects at once, so the "user" here is automated: `onAuthorizationUrl` fetches the URL without
 * following the redirect and returns where it points (the callback with code, state and iss).
 * Scenario data (client IDs, secrets, keys, tokens) comes from the runner's context.
 */
import { connect, memoryTokenStore, oauth, type McpClient, type OAuthOptions } from "../../src/index.js";
import type { ConformanceEnv } from "./env.js";

/** The client metadata URL the runner accepts as a client ID (auth/basic-cimd). */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

type Scenario = (env: ConformanceEnv) => Promise<void>;

/** A person who consents at once: follows the authorization URL to its redirect and hands it back. */
async function automatedUser(url: URL): Promise<string> {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (location === null) throw new Error(`the authorization endpoint answered HTTP ${response.status} without a redirect`);
  return location;
}

function text(context: Record<string, unknown> | undefined, key: string): string {
  const value = context?.[key];
  if (typeof value !== "string") throw new Error(`the scenario context has no "${key}"`);
  return value;
}

async function withClient(env: ConformanceEnv, options: OAuthOptions, run: (client: McpClient) => Promise<void>): Promise<void> {
  const auth = oauth({
    store: memoryTokenStore(),
    clientName: "mcp-switchboard-conformance",
    redirectUri: "http://127.0.0.1:3000/callback",
    onAuthorizationUrl: automatedUser,
    ...options,
  });
  const client = await connect(
    { url: env.url, auth },
    { protocol: env.protocol, clientInfo: { name: "mcp-switchboard-conformance", version: "0.1.0" }, requestTimeoutMs: 15_000 },
  );
  try {
    await run(client);
  } finally {
    await client.close();
  }
}

/** Lists the tools and calls each: the requests the runner's servers guard. */
async function listAndCall(client: McpClient): Promise<void> {
  const tools = await client.listTools({ cache: false });
  for (const tool of tools) await client.callTool(tool.name, {});
}

/** The ordinary flow: discovery, registration (or a metadata document), authorization code, tools. */
const standard: Scenario = (env) => withClient(env, { clientMetadataUrl: CLIENT_METADATA_URL }, listAndCall);

const preRegistered: Scenario = (env) =>
  withClient(env, { clientId: text(env.context, "client_id"), clientSecret: text(env.context, "client_secret") }, listAndCall);

const clientCredentialsJwt: Scenario = (env) =>
  withClient(
    env,
    {
      grant: "client_credentials",
      clientId: text(env.context, "client_id"),
      privateKey: text(env.context, "private_key_pem"),
      signingAlgorithm: typeof env.context?.signing_algorithm === "string" ? env.context.signing_algorithm : "ES256",
    },
    listAndCall,
  );

const clientCredentialsBasic: Scenario = (env) =>
  withClient(env, { grant: "client_credentials", clientId: text(env.context, "client_id"), clientSecret: text(env.context, "client_secret") }, listAndCall);

/** SEP-990: the IdP's ID token exchanged for an ID-JAG, then the JWT bearer grant at the MCP server's authorization server. */
const enterprise: Scenario = (env) =>
  withClient(
    env,
    {
      clientId: text(env.context, "client_id"),
      clientSecret: text(env.context, "client_secret"),
      enterprise: {
        idpTokenEndpoint: text(env.context, "idp_token_endpoint"),
        idpIssuer: text(env.context, "idp_issuer"),
        idpClientId: text(env.context, "idp_client_id"),
        idToken: text(env.context, "idp_id_token"),
      },
    },
    listAndCall,
  );

/** SEP-1933: workload identity, the platform's JWT as an RFC 7523 assertion. */
const workloadIdentity: Scenario = (env) =>
  withClient(env, { clientId: text(env.context, "client_id"), assertion: text(env.context, "valid_jwt") }, listAndCall);

export const authScenarios: Record<string, Scenario> = {
  "auth/metadata-default": standard,
  "auth/metadata-var1": standard,
  "auth/metadata-var2": standard,
  "auth/metadata-var3": standard,
  "auth/basic-cimd": standard,
  "auth/scope-from-www-authenticate": standard,
  "auth/scope-from-scopes-supported": standard,
  "auth/scope-omitted-when-undefined": standard,
  "auth/scope-step-up": standard,
  "auth/scope-retry-limit": standard,
  "auth/token-endpoint-auth-basic": standard,
  "auth/token-endpoint-auth-post": standard,
  "auth/token-endpoint-auth-none": standard,
  "auth/pre-registration": preRegistered,
  "auth/2025-03-26-oauth-metadata-backcompat": standard,
  "auth/2025-03-26-oauth-endpoint-fallback": standard,
  "auth/resource-mismatch": standard,
  "auth/offline-access-scope": standard,
  "auth/offline-access-not-supported": standard,
  "auth/authorization-server-migration": standard,
  "auth/iss-supported": standard,
  "auth/iss-not-advertised": standard,
  "auth/iss-supported-missing": standard,
  "auth/iss-wrong-issuer": standard,
  "auth/iss-unexpected": standard,
  "auth/iss-normalized": standard,
  "auth/metadata-issuer-mismatch": standard,
  "auth/client-credentials-jwt": clientCredentialsJwt,
  "auth/client-credentials-basic": clientCredentialsBasic,
  "auth/enterprise-managed-authorization": enterprise,
  "auth/cross-app-access-complete-flow": enterprise,
  "auth/dpop": standard,
  "auth/dpop-nonce": standard,
  "auth/wif-jwt-bearer": workloadIdentity,
};
