/**
 * What the structure tests read: the TypeScript files of a folder, and the comments in a file (through
 * the compiler's own comment ranges, so a string or a regular expression that looks like a comment is
 * never taken for one).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Every .ts file under `folder` (relative to the repository root), as root-relative paths with "/". */
export function typeScriptFiles(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules") continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) found.push(relative(ROOT, path).split("\\").join("/"));
    }
  };
  walk(join(ROOT, folder));
  return found.sort();
}

export function readSource(file: string): string {
  return readFileSync(join(ROOT, file), "utf8");
}

export interface Comment {
  text: string;
  /** 1-based line of the comment's start. */
  line: number;
}

/** Every comment in a TypeScript source, once each. */
export function commentsOf(file: string, text = readSource(file)): Comment[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const seen = new Set<number>();
  const comments: Comment[] = [];
  const collect = (ranges: readonly ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      comments.push({ text: text.slice(range.pos, range.end), line: source.getLineAndCharacterOfPosition(range.pos).line + 1 });
    }
  };
  // Tokens too (getChildren, not forEachChild): a comment before a closing brace belongs to no node.
  const visit = (node: ts.Node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return comments.sort((a, b) => a.line - b.line);
}

/** Import and re-export specifiers of a source (static, type-only and dynamic `import("...")` alike). */
export function importsOf(file: string, text = readSource(file)): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const specifiers: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      specifiers.push(node.moduleSpecifier.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0]))
      specifiers.push(node.arguments[0].text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      specifiers.push(node.argument.literal.text);
    node.forEachChild(visit);
  };
  visit(source);
  return specifiers;
}
