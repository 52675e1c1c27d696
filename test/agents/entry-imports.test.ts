/**
 * The package entry pulls in no framework or provider SDK: the import graph of `src/index.ts` (every
 * relative import followed, type imports included, since they end up in the .d.ts files) names none of
 * `ai`, `@langchain/*`, `openai` or `@anthropic-ai/sdk`. The bridges are separate entries whose
 * `package.json` exports point at what `npm run build` emits from them.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const optional = /^(ai|@ai-sdk\/.*|@langchain\/.*|langchain|openai|@anthropic-ai\/sdk)(\/.*)?$/;

/** Every module specifier reached from `entry`, per file that names it. */
function importGraph(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue = [resolve(root, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    const source = readFileSync(file, "utf8");
    const specifiers = [
      ...source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)|(?:^|\n)\s*import\s+"([^"]+)"/g),
    ].map((m) => m[1] ?? m[2] ?? m[3]);
    seen.set(file, specifiers);
    for (const specifier of specifiers) {
      if (!specifier.startsWith(".")) continue;
      // A .js specifier names a .ts source, or a declaration file (types/mcp-spec.d.ts) that ships as is.
      const target = join(dirname(file), specifier.replace(/\.js$/, ".ts"));
      queue.push(existsSync(target) ? target : target.replace(/\.ts$/, ".d.ts"));
    }
  }
  return seen;
}

function bareImports(graph: Map<string, string[]>): Array<[string, string]> {
  return [...graph].flatMap(([file, specifiers]) =>
    specifiers.filter((s) => !s.startsWith(".") && !s.startsWith("node:")).map((s): [string, string] => [relative(root, file), s]),
  );
}

describe("entries", () => {
  it("src/index.ts reaches no framework or provider SDK", () => {
    const graph = importGraph("src/index.ts");
    expect(graph.size).toBeGreaterThan(50);
    expect([...graph.keys()].some((file) => file.endsWith("agents/run-agent.ts"))).toBe(true);
    expect(bareImports(graph).filter(([, specifier]) => optional.test(specifier))).toEqual([]);
  });

  it("the bridges import their framework, and package.json exports them from dist", () => {
    expect(bareImports(importGraph("src/agents/bridges/ai.ts")).map(([, s]) => s)).toContain("ai");
    expect(bareImports(importGraph("src/agents/bridges/langchain.ts")).map(([, s]) => s)).toContain("@langchain/core/tools");
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    expect(pkg.exports["./ai"]).toEqual({ types: "./dist/agents/bridges/ai.d.ts", import: "./dist/agents/bridges/ai.js" });
    expect(pkg.exports["./langchain"]).toEqual({ types: "./dist/agents/bridges/langchain.d.ts", import: "./dist/agents/bridges/langchain.js" });
    expect(pkg.peerDependenciesMeta).toMatchObject({ ai: { optional: true }, "@langchain/core": { optional: true } });
    expect(Object.keys(pkg.dependencies)).not.toContain("ai");
    expect(Object.keys(pkg.dependencies).filter((name: string) => optional.test(name))).toEqual([]);
  });
});
