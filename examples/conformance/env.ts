/**
 * What the official conformance runner tells the client it starts, read in one place:
 *
 * - the scenario server's URL: the last command-line argument;
 * - the scenario's name: `MCP_CONFORMANCE_SCENARIO`;
 * - scenario data (test values, credentials): `MCP_CONFORMANCE_CONTEXT`, a JSON object, only when the
 *   scenario has some;
 * - the protocol revision the scenario runs at: `MCP_CONFORMANCE_PROTOCOL_VERSION` (runner 0.2 and later;
 *   the context may carry it too). Runner 0.1 says nothing, so the client negotiates ("auto").
 */
import type { ProtocolMode } from "../../src/index.js";

export interface ConformanceEnv {
  url: string;
  scenario: string;
  context: Record<string, unknown> | undefined;
  /** "legacy", "2026-07-28", or whatever revision a scenario names. */
  protocol: string;
}

/** One scenario: resolves when the client did its part, rejects (the runner sees a non-zero exit) when not. */
export type Scenario = (env: ConformanceEnv) => Promise<void>;

/** Which `connect({ protocol })` speaks the revision the runner named. */
export function protocolFor(version: string | undefined): ProtocolMode {
  if (version === undefined || version === "") return "auto";
  // Every dated revision before 2026-07-28 is the session era; a client speaks it by offering its
  // newest session-era version and accepting what the server answers, as any 2025 client does.
  if (/^20(24|25)-\d\d-\d\d$/.test(version)) return "legacy";
  return version;
}

export function readEnv(argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): ConformanceEnv {
  const url = argv[argv.length - 1];
  if (argv.length < 3 || !/^https?:\/\//.test(url ?? "")) {
    throw new Error(`expected the scenario server's URL as the last argument, got ${JSON.stringify(url)}`);
  }
  const scenario = env.MCP_CONFORMANCE_SCENARIO ?? "";
  if (!scenario) throw new Error("MCP_CONFORMANCE_SCENARIO is not set: run this program through the conformance runner");
  const context = parseContext(env.MCP_CONFORMANCE_CONTEXT);
  const version = env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? stringField(context, "protocolVersion") ?? stringField(context, "specVersion");
  return { url, scenario, context, protocol: protocolFor(version) };
}

function parseContext(raw: string | undefined): Record<string, unknown> | undefined {
  if (raw === undefined || raw === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new Error(`MCP_CONFORMANCE_CONTEXT is not JSON: ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new Error("MCP_CONFORMANCE_CONTEXT is not a JSON object");
  }
  return parsed as Record<string, unknown>;
}

function stringField(context: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = context?.[key];
  return typeof value === "string" ? value : undefined;
}
