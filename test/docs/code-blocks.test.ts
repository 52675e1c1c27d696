/**
 * Every ```ts block of the README and of docs/guide/ type-checks against the package source: each block
 * becomes a module in a scratch folder, "mcp-switchboard" (and its subpaths) map to src/, and one
 * TypeScript program checks them all. A block that is an excerpt declares what it uses (`declare const`).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const DOC_FILES = [
  "README.md",
  ...readdirSync(join(root, "docs/guide"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/guide/${f}`),
];

interface Block {
  file: string;
  line: number;
  code: string;
}

function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== "```ts") continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== "```") end++;
    blocks.push({ file, line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

const scratchParent = join(root, ".scratch");
mkdirSync(scratchParent, { recursive: true });
const scratch = mkdtempSync(join(scratchParent, "doc-blocks-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the documentation's TypeScript", () => {
  const blocks = DOC_FILES.flatMap(blocksOf);

  it("has blocks to check", () => {
    expect(blocks.length).toBeGreaterThan(10);
  });

  it("type-checks, every block of README.md and docs/guide/*.md", () => {
    const names = blocks.map((block, index) => {
      const name = join(scratch, `block-${index}.ts`);
      // A module of its own (top-level await, no clash between blocks' names).
      writeFileSync(name, `${block.code}\nexport {};\n`);
      return name;
    });
    // A package a block imports that is no dependency of this repository (LangChain's own agent, say)
    // is declared as any: the block's use of this package's API is what is checked.
    const missing = new Set(
      blocks.flatMap((block) =>
        [...block.code.matchAll(/from "((?:@[^/"]+\/)?[^/"]+)[^"]*"/g)]
          .map((m) => m[1])
          .filter((name) => name !== "mcp-switchboard" && !existsSync(join(root, "node_modules", name))),
      ),
    );
    const ambient = join(scratch, "missing-packages.d.ts");
    writeFileSync(ambient, [...missing].map((name) => `declare module "${name}";`).join("\n"));
    names.push(ambient);
    const src = join(root, "src");
    const program = ts.createProgram(names, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
      types: ["node"],
      typeRoots: [join(root, "node_modules/@types")],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      esModuleInterop: true,
      baseUrl: root,
      paths: sourcePaths(src),
    });
    // Diagnostics of the blocks' files only: the checker then resolves just the parts of src/ a block
    // uses, rather than checking all of src/ again (the typecheck step does that); on a loaded 2-core
    // machine the whole-program check took over two minutes.
    const problems = names
      .flatMap((name) => ts.getPreEmitDiagnostics(program, program.getSourceFile(name)))
      .filter((d) => d.file !== undefined && names.includes(d.file.fileName))
      .map((d) => {
        const index = names.indexOf(d.file!.fileName);
        const block = blocks[index];
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${block.file}:${block.line + line}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
      });
    expect(problems, `in ${relative(root, scratch)}`).toEqual([]);
  }, 120_000);
});

/**
 * Every entry point of package.json "exports" mapped to its source file (the types under dist/ become the
 * same path under src/ with .ts), so a block checks against src/ whether or not dist/ was built (a fresh clone has none).
 */
function sourcePaths(src: string): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, string | { types?: string }> };
  const paths: Record<string, string[]> = {};
  for (const [key, target] of Object.entries(pkg.exports)) {
    const types = typeof target === "string" ? undefined : target.types;
    if (types === undefined) continue;
    paths[key === "." ? "mcp-switchboard" : `mcp-switchboard/${key.slice(2)}`] = [join(src, types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts"))];
  }
  return paths;
}
