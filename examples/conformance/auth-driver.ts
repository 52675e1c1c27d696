/**
 * Runs one authorization scenario for the conformance runner (until the main dispatcher takes them):
 *
 *   conformance client --command "node --import tsx examples/conformance/auth-driver.ts" --scenario auth/metadata-default
 *
 * The runner passes the server URL as the last argument, the scenario in MCP_CONFORMANCE_SCENARIO,
 * its data in MCP_CONFORMANCE_CONTEXT (JSON) and, from 0.2 on, the protocol revision in
 * MCP_CONFORMANCE_PROTOCOL_VERSION (2026-07-28 means the stateless era; anything else the 2025 one).
 */
import { authScenarios } from "./auth.js";
import type { ConformanceEnv } from "./env.js";

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const rawContext = process.env.MCP_CONFORMANCE_CONTEXT;
const env: ConformanceEnv = {
  url: process.argv[process.argv.length - 1],
  scenario,
  context: rawContext === undefined ? undefined : (JSON.parse(rawContext) as Record<string, unknown>),
  protocol: version === "2026-07-28" ? "2026-07-28" : "legacy",
};

const run = authScenarios[scenario];
if (run === undefined) {
  console.error(`unknown scenario ${JSON.stringify(scenario)}`);
  process.exit(2);
}
run(env).then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`conformance client (${scenario}) failed:`, error);
    process.exit(1);
  },
);
