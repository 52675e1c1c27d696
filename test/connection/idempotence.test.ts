/**
 * One idempotence rule: the connection (a 2026-era re-send after a lost stream) and the supervisor
 * (moving a call to a fallback) use the same function, defined below both.
 */
import { describe, expect, it } from "vitest";
import { isIdempotentTool } from "../../src/connection/idempotence.js";
import { isIdempotentTool as supervisorRule } from "../../src/supervisor/routing.js";
import { ToolFacts } from "../../src/connection/eras/tool-facts.js";

describe("the idempotence rule", () => {
  it("is one function, used by the supervisor", () => {
    expect(supervisorRule).toBe(isIdempotentTool);
  });

  it("the 2026 era's tool facts answer by it: hints from tools/list, the caller's option wins both ways", () => {
    const facts = new ToolFacts(false, () => {});
    const tools = [
      { name: "read", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } },
      { name: "put", inputSchema: { type: "object" }, annotations: { idempotentHint: true } },
      { name: "send", inputSchema: { type: "object" }, annotations: { destructiveHint: true } },
    ];
    facts.learn({ tools });
    for (const tool of tools) {
      for (const option of [undefined, true, false]) {
        expect(facts.repeatable(tool.name, option)).toBe(isIdempotentTool(tool, option));
      }
    }
    expect(facts.repeatable("unknown", undefined)).toBe(false);
    expect(facts.repeatable("unknown", true)).toBe(true);
  });
});
