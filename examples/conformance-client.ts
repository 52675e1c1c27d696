/**
 * The client program the official conformance runner starts (see `.ci/conformance`):
 *
 *   conformance client --command "node --import tsx examples/conformance-client.ts" --scenario <name>
 *
 * It reads what the runner says (server URL, scenario, era, scenario data: examples/conformance/env.ts),
 * looks the scenario up, and runs it through the public API only. The scenarios live in
 * examples/conformance/core.ts (and examples/conformance/skills.ts) and, for authorization, examples/conformance/auth.ts.
 * It exits non-zero, with the reason on stderr, when a scenario fails, so the runner's log says why.
 */
import { authScenarios } from "./conformance/auth.js";
import { coreScenarios } from "./conformance/core.js";
import { readEnv, type ConformanceEnv, type Scenario } from "./conformance/env.js";

async function main(env: ConformanceEnv): Promise<void> {
  const scenarios: Record<string, Scenario> = { ...coreScenarios, ...authScenarios };
  const scenario = scenarios[env.scenario];
  if (!scenario) throw new Error(`unknown scenario ${JSON.stringify(env.scenario)}; this client knows ${Object.keys(scenarios).join(", ")}`);
  await scenario(env);
}

let scenarioName = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
Promise.resolve()
  .then(() => {
    const env = readEnv();
    scenarioName = `${env.scenario} at ${env.protocol}`;
    return main(env);
  })
  .then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(`conformance client (${scenarioName}) failed:`, error);
      process.exit(1);
    },
  );
