/**
 * The conformance client takes the protocol era from the runner, never from a pin of its own: the
 * revision in MCP_CONFORMANCE_PROTOCOL_VERSION (or the scenario context) picks `connect()`'s protocol,
 * and a runner that names none (0.1.x) gets the negotiating default.
 */
import { describe, expect, it } from "vitest";
import { protocolFor, readEnv } from "../../examples/conformance/env.js";

const argv = ["node", "examples/conformance-client.ts", "http://localhost:4000/mcp"];

describe("conformance client environment", () => {
  it("maps the runner's revision to a protocol mode", () => {
    expect(protocolFor("2026-07-28")).toBe("2026-07-28");
    for (const legacy of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) expect(protocolFor(legacy)).toBe("legacy");
    expect(protocolFor(undefined)).toBe("auto");
  });

  it("reads URL, scenario, context and era from what the runner passes", () => {
    const env = readEnv(argv, {
      MCP_CONFORMANCE_SCENARIO: "http-custom-headers",
      MCP_CONFORMANCE_PROTOCOL_VERSION: "2026-07-28",
      MCP_CONFORMANCE_CONTEXT: JSON.stringify({ name: "http-custom-headers", toolCalls: [] }),
    });
    expect(env).toEqual({
      url: "http://localhost:4000/mcp",
      scenario: "http-custom-headers",
      context: { name: "http-custom-headers", toolCalls: [] },
      protocol: "2026-07-28",
    });
    expect(readEnv(argv, { MCP_CONFORMANCE_SCENARIO: "initialize" }).protocol).toBe("auto");
    expect(readEnv(argv, { MCP_CONFORMANCE_SCENARIO: "x", MCP_CONFORMANCE_CONTEXT: '{"protocolVersion":"2025-06-18"}' }).protocol).toBe("legacy");
  });

  it("says what is wrong when run outside the runner", () => {
    expect(() => readEnv(["node", "client.ts"], { MCP_CONFORMANCE_SCENARIO: "x" })).toThrow(/expected the scenario server's URL as the last argument/);
    expect(() => readEnv(argv, {})).toThrow(/MCP_CONFORMANCE_SCENARIO is not set/);
    expect(() => readEnv(argv, { MCP_CONFORMANCE_SCENARIO: "x", MCP_CONFORMANCE_CONTEXT: "{nope" })).toThrow(/MCP_CONFORMANCE_CONTEXT is not JSON/);
  });
});
