/**
 * The client program the official conformance runner starts:
 *
 *   conformance client --command "tsx examples/conformance-client.ts" --scenario <name>
 *
 * The runner appends the scenario server's URL as the last argument and names the scenario in
 * MCP_CONFORMANCE_SCENARIO. Each scenario expects a particular conversation; this program has one
 * function per scenario, all through the public `connect()` over Streamable HTTP. It exits non-zero
 * (with the reason on stderr) when something fails, so the runner's logs say why.
 */
import { connect, type ClientOptions, type McpClient } from "../src/index.js";

const url = process.argv[process.argv.length - 1];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";

// The scenarios run here are 2025-era servers; pinning the era keeps them a test of that era only.
const base: ClientOptions = { protocol: "legacy", clientInfo: { name: "mcp-switchboard-conformance", version: "0.1.0" }, requestTimeoutMs: 15_000 };

type Scenario = (client: McpClient) => Promise<void>;

const scenarios: Record<string, { options?: ClientOptions; run: Scenario }> = {
  initialize: {
    // The handshake is the test; the server declares no capabilities, so a ping is all there is to ask.
    run: async (client) => {
      await client.ping();
    },
  },
  tools_call: {
    run: async (client) => {
      const tools = await client.listTools();
      if (!tools.some((tool) => tool.name === "add_numbers")) throw new Error("the server does not list add_numbers");
      const result = await client.callTool("add_numbers", { a: 5, b: 3 }, { throwOnError: true });
      console.log(JSON.stringify(result.content));
    },
  },
  "elicitation-sep1034-client-defaults": {
    // Accepting with no content at all: the client must fill in every field's schema default.
    options: { onElicitation: () => ({ action: "accept", content: {} }) },
    run: async (client) => {
      const tools = await client.listTools();
      for (const tool of tools) console.log(JSON.stringify((await client.callTool(tool.name, {}, { throwOnError: true })).content));
    },
  },
  "sse-retry": {
    // The server closes the tools/call stream after a priming event; the answer arrives only on the
    // GET stream the client must reopen, after the advertised `retry`, with Last-Event-ID.
    run: async (client) => {
      const tools = await client.listTools();
      for (const tool of tools) console.log(JSON.stringify((await client.callTool(tool.name, {}, { timeoutMs: 10_000 })).content));
    },
  },
};

async function main(): Promise<void> {
  const chosen = scenarios[scenario];
  if (!chosen) throw new Error(`unknown scenario ${JSON.stringify(scenario)}; this client knows ${Object.keys(scenarios).join(", ")}`);
  const client = await connect({ url }, { ...base, ...chosen.options });
  try {
    await chosen.run(client);
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`conformance client (${scenario}) failed:`, error);
    process.exit(1);
  },
);
