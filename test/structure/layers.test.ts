/**
 * The layering of docs/ARCHITECTURE.md, "Layers", checked on every file in src/: a file imports only
 * from its own folder and from folders listed before it. The order is read from that document's
 * folder list, so the document and this check cannot drift apart. Also the size rule: no file in src/
 * over 400 lines.
 */
import { existsSync, statSync } from "node:fs";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { importsOf, readSource, ROOT, typeScriptFiles } from "./source-files.js";

const MAX_LINES = 400;

/** The layer folders, lowest first, from the first code block of the "## Layers" section. */
function documentedLayers(markdown: string): string[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("Layers\n"));
  if (section === undefined) throw new Error('docs/ARCHITECTURE.md has no "## Layers" section');
  const block = /```[^\n]*\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('the "Layers" section of docs/ARCHITECTURE.md has no code block');
  return [...block.matchAll(/^ {2}([a-z][\w-]*)\/ /gm)].map((m) => m[1]);
}

/** The src/ folder an import specifier of `file` lands in, or undefined for a package import. */
function targetFolder(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const target = posix.normalize(posix.join(posix.dirname(file), specifier));
  if (!target.startsWith("src/")) return undefined;
  const rest = target.slice("src/".length);
  return rest.includes("/") ? rest.slice(0, rest.indexOf("/")) : "(the package entry)";
}

const layers = documentedLayers(readSource("docs/ARCHITECTURE.md"));
const rank = new Map(layers.map((layer, i) => [layer, i]));

describe("layers (docs/ARCHITECTURE.md)", () => {
  it("lists the layers in order, and every folder of src/ is one of them", () => {
    expect(layers.slice(0, 3)).toEqual(["util", "jsonrpc", "framing"]);
    expect(layers.at(-1)).toBe("cli");
    const folders = new Set(typeScriptFiles("src").flatMap((f) => (f.split("/").length > 2 ? [f.split("/")[1]] : [])));
    expect([...folders].filter((f) => !rank.has(f))).toEqual([]);
    for (const layer of layers) expect(existsSync(join(ROOT, "src", layer)) && statSync(join(ROOT, "src", layer)).isDirectory(), `src/${layer}/`).toBe(true);
  });

  it("no file in src/ imports from a layer above its own", () => {
    const violations: string[] = [];
    for (const file of typeScriptFiles("src")) {
      const parts = file.split("/");
      if (parts.length === 2) continue; // src/index.ts: the entry sits above every layer
      const own = parts[1];
      for (const specifier of importsOf(file)) {
        const target = targetFolder(file, specifier);
        if (target === undefined || target === own) continue;
        if (!rank.has(target) || rank.get(target)! > rank.get(own)!) violations.push(`${file} (${own}) imports ${specifier} (${target})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it(`no file in src/ is over ${MAX_LINES} lines`, () => {
    const lines = (file: string) => readSource(file).split("\n").length - (readSource(file).endsWith("\n") ? 1 : 0);
    const files = typeScriptFiles("src");
    const over = files.filter((file) => lines(file) > MAX_LINES).map((file) => `${file}: ${lines(file)} lines`);
    expect(over).toEqual([]);
  });
});
