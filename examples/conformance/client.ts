/**
 * What every conformance scenario shares: the `connect()` options a full-featured host would pass (all
 * three server-to-client handlers, so every capability check has something to check), the era the
 * runner asked for, and a connect/close bracket.
 */
import { connect, VERSION, type ClientOptions, type McpClient, type Tool } from "../../src/index.js";
import type { ConformanceEnv } from "./env.js";

export const clientInfo = { name: "mcp-switchboard-conformance", version: VERSION };

/** Options for a scenario: the era from the runner, the host's handlers, then the scenario's own. */
export function clientOptions(env: ConformanceEnv, extra: ClientOptions = {}): ClientOptions {
  return {
    protocol: env.protocol,
    clientInfo,
    requestTimeoutMs: 15_000,
    // A host that asks its user: here the user accepts every form as it comes, so the fields the
    // server gave defaults for are filled in by the client (SEP-1034).
    onElicitation: () => ({ action: "accept", content: {} }),
    onSampling: () => ({ role: "assistant", model: "conformance-model", content: { type: "text", text: "conformance" } }),
    roots: [{ uri: "file:///conformance", name: "conformance" }],
    ...extra,
  };
}

/** Connects as `env` says, runs `body`, and closes whatever happens. */
export async function withClient<T>(env: ConformanceEnv, options: ClientOptions, body: (client: McpClient) => Promise<T>): Promise<T> {
  const client = await connect({ url: env.url }, options);
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

/**
 * Arguments a caller with nothing particular to say would give a tool: a plain value for each required
 * property, by its declared type.
 */
export function sampleArguments(tool: Tool): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const type = schema.properties?.[name]?.type;
    args[name] = type === "integer" || type === "number" ? 1 : type === "boolean" ? true : type === "object" ? {} : type === "array" ? [] : "conformance";
  }
  return args;
}

/** The tool calls a scenario's context prescribes (`toolCalls: [{ name, arguments }]`), if any. */
export function contextToolCalls(env: ConformanceEnv): Array<{ name: string; arguments: Record<string, unknown> }> {
  const calls = env.context?.toolCalls;
  if (!Array.isArray(calls)) return [];
  return calls.filter((call): call is { name: string; arguments: Record<string, unknown> } => typeof call?.name === "string");
}

export function print(label: string, value: unknown): void {
  console.log(`${label}: ${JSON.stringify(value)}`);
}
