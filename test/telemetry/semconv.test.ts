/**
 * Every name this package records is the semantic conventions' own: each ATTR_/METRIC_ constant of
 * src/telemetry/semconv.ts equals the constant of the same name in @opentelemetry/semantic-conventions,
 * and the buckets are the MCP conventions' advised ones.
 */
import * as conventions from "@opentelemetry/semantic-conventions/incubating";
import { describe, expect, it } from "vitest";
import * as ours from "../../src/telemetry/semconv.js";

describe("the names recorded", () => {
  const names = Object.keys(ours).filter((key) => key.startsWith("ATTR_") || key.startsWith("METRIC_"));

  it.each(names)("%s is the conventions' constant", (name) => {
    expect((conventions as Record<string, unknown>)[name]).toBeDefined();
    expect((ours as Record<string, unknown>)[name]).toBe((conventions as Record<string, unknown>)[name]);
  });

  it("the operation names and the tool error value", () => {
    expect(ours.GEN_AI_OPERATION_EXECUTE_TOOL).toBe(conventions.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
    expect(ours.GEN_AI_OPERATION_CHAT).toBe(conventions.GEN_AI_OPERATION_NAME_VALUE_CHAT);
    expect(ours.TOOL_ERROR).toBe("tool_error");
  });

  it("the advised buckets of both MCP duration metrics", () => {
    expect(ours.MCP_DURATION_BUCKETS).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
  });
});
