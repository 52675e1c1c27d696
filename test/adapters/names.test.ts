/**
 * Provider tool names over long and odd server and tool names: every name fits each provider's rule,
 * no two tools of a list share one, each maps back, and the mapping does not depend on list order.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { providerNames, providerToolName, toGeminiTools, toOpenAITools, type NameRule, type Tool } from "../../src/index.js";

const RULES: Record<NameRule, RegExp> = {
  openai: /^[a-zA-Z0-9_-]{1,64}$/,
  anthropic: /^[a-zA-Z0-9_-]{1,64}$/,
  gemini: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/,
};

const part = fc.oneof(
  fc.string({ minLength: 1, maxLength: 90 }),
  fc.stringMatching(/^[a-z][a-z0-9_./ -]{0,80}$/),
  fc.constantFrom("a.b", "a/b", "a_b", "ü", "工具", "9lives", "-", "_", "a".repeat(64), "a".repeat(65)),
);
const qualifiedNames = fc.uniqueArray(
  fc.tuple(part, part).map(([server, tool]) => `${server}__${tool}`),
  { minLength: 1, maxLength: 12 },
);

describe("provider names", () => {
  it("fit each provider's rule, never collide, map back, and do not depend on list order", () => {
    fc.assert(
      fc.property(qualifiedNames, fc.option(fc.constantFrom("mcp", "x"), { nil: undefined }), (names, prefix) => {
        for (const rule of Object.keys(RULES) as NameRule[]) {
          const map = providerNames(names, rule, { prefix });
          const given = names.map((name) => map.toProvider.get(name)!);
          for (const name of given) expect(name).toMatch(RULES[rule]);
          expect(new Set(given).size).toBe(names.length);
          for (const name of names) expect(map.toMcp.get(map.toProvider.get(name)!)).toBe(name);
          expect(providerNames([...names].reverse(), rule, { prefix }).toProvider).toEqual(map.toProvider);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("keeps names that fit, prefixes when asked, and hashes the rest apart", () => {
    expect(providerToolName("math__add")).toBe("math__add");
    expect(providerNames(["math__add"], "openai", { prefix: "mcp" }).toProvider.get("math__add")).toBe("mcp__math__add");
    const dotted = providerNames(["docs.v2__search", "docs_v2__search"], "openai").toProvider;
    expect(dotted.get("docs_v2__search")).toBe("docs_v2__search");
    expect(dotted.get("docs.v2__search")).toMatch(/^docs_v2__search_[0-9a-f]{8}$/);
    expect(providerNames(["docs.v2__search"], "gemini").toProvider.get("docs.v2__search")).toBe("docs.v2__search");
    expect(providerNames(["9lives"], "gemini").toProvider.get("9lives")).toMatch(/^_9lives_[0-9a-f]{8}$/);
  });

  it("a name that fits is never taken by another tool's hashed name", () => {
    const hashed = providerToolName("a.b");
    const map = providerNames(["a.b", hashed], "openai");
    expect(map.toProvider.get(hashed)).toBe(hashed);
    expect(map.toProvider.get("a.b")).not.toBe(hashed);
    expect(map.toProvider.get("a.b")).toMatch(RULES.openai);
  });

  it("tool lists come out in name order whatever order the servers listed them in", () => {
    const tools: Tool[] = ["b__x", "a__y", "a.c__z"].map((name) => ({ name, inputSchema: { type: "object" } }));
    expect(toOpenAITools(tools).map((t) => t.function.name)).toEqual(toOpenAITools([...tools].reverse()).map((t) => t.function.name));
    expect(toGeminiTools(tools).map((t) => t.name)).toEqual(["a.c__z", "a__y", "b__x"]);
  });
});
