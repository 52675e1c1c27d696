/**
 * The code blocks of docs/guide/code-mode.md type-check against the package (the source, through a
 * `paths` mapping of "mcp-switchboard"), so the guide cannot drift from the API.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

it("every ts block of the code mode guide type-checks", () => {
  const guide = readFileSync(`${root}docs/guide/code-mode.md`, "utf8");
  const blocks = [...guide.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
  expect(blocks.length).toBeGreaterThanOrEqual(4);
  const files = new Map(blocks.map((block, i) => [`${root}docs/guide/code-mode-block-${i}.ts`, `${block}\nexport {};\n`]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts"],
    types: ["node"],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    baseUrl: root,
    paths: { "mcp-switchboard": ["src/index.ts"], "mcp-switchboard/telemetry": ["src/telemetry/index.ts"] },
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version) => (files.has(name) ? ts.createSourceFile(name, files.get(name)!, version) : read(name, version));
  host.fileExists = (name) => files.has(name) || ts.sys.fileExists(name);
  const program = ts.createProgram([...files.keys()], options, host);
  const errors = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || files.has(d.file.fileName))
    .map((d) => `${d.file?.fileName.split("/").at(-1) ?? ""}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
  expect(errors).toEqual([]);
}, 120_000);
