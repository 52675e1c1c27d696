/** The full mcp.json that config.test.ts loads and config-schema.test.ts checks against the schema. */
export const FULL_CONFIG = {
  $schema: "https://example.com/schema.json",
  separator: "__",
  mcpServers: {
    github: {
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github", "--owner=${OWNER:-me}"],
      env: { GITHUB_TOKEN: "${GITHUB_TOKEN}", LOG: "$${NOT_A_VAR}" },
      cwd: "work",
      fallbacks: ["github-mirror"],
      restart: { maxRestarts: 3, withinMs: 10_000, cooldownMs: 300_000, healthyAfterMs: 2000, backoff: { initialMs: 50, jitter: 0.5 } },
      requestTimeoutMs: 5000,
      maxConcurrency: 8,
      maxQueue: 16,
      circuit: { failureThreshold: 2 },
      tools: { only: ["search_*", "get_issue"], except: ["search_code"], descriptions: { get_issue: "Read one ${issue}." } },
    },
    "github-mirror": { url: "https://${MIRROR_HOST}/mcp", type: "http", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } },
    live: { url: "wss://live.example.com/mcp" },
    legacy: { url: "http://localhost:3001/sse", type: "sse", disabled: true },
  },
};
