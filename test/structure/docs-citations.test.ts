/**
 * Comments cite only what a reader of this repository can open (docs/ARCHITECTURE.md, "Layers"): a
 * document path exists, a section of the spec digest or the README that a comment names is there, a
 * source file a comment in src/ names exists, and nothing cites the issue tracker, which is not part
 * of the repository (say what the issue asked for instead, or cite the README or docs/).
 */
import { existsSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { commentsOf, readSource, ROOT, typeScriptFiles, type Comment } from "./source-files.js";

const FOLDERS = ["src", "test", "bench", "examples"];

/**
 * `.md` names in comments that are not documents of this repository: the skills extension's file
 * names (SEP-2640), which its code and tests talk about.
 */
const NOT_DOCS = new Set(["SKILL.md", "FORMS.md", "GUIDE.md", "references/FORMS.md", "references/GUIDE.md"]);

interface Citation {
  file: string;
  line: number;
  cited: string;
}

/** Each file is parsed once for all the checks. */
const commentCache = new Map<string, Comment[]>();

function citations(folder: string, find: (comment: Comment, file: string) => string[]): Citation[] {
  const found: Citation[] = [];
  for (const file of typeScriptFiles(folder)) {
    let comments = commentCache.get(file);
    if (comments === undefined) commentCache.set(file, (comments = commentsOf(file)));
    for (const comment of comments) for (const cited of find(comment, file)) found.push({ file, line: comment.line, cited });
  }
  return found;
}

const where = (c: Citation) => `${c.file}:${c.line}: ${c.cited}`;

/** Path-like tokens ending in `.md` (a URL or a `skill://` URI is not a path of this repository). */
function mdPaths(text: string): string[] {
  return [...text.matchAll(/(?<![\w/.:-])((?:[\w.-]+\/)*[\w.-]+\.md)\b/g)].map((m) => m[1]).filter((p) => !NOT_DOCS.has(p) && !p.startsWith("skill:"));
}

/** The numbered `## N.` sections of a markdown document. */
function numberedSections(doc: string): Set<string> {
  return new Set([...readSource(doc).matchAll(/^## (\d+)\./gm)].map((m) => m[1]));
}

/** The headings of a markdown document, without their `#`s and backticks. */
function headings(doc: string): string[] {
  return [...readSource(doc).matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1].replaceAll("`", "").trim());
}

/** A README or docs/ path, an optional comma, then a section heading in double quotes. */
function sectionCitations(text: string): Array<{ doc: string; section: string }> {
  return [...text.matchAll(/\b(README(?:\.md)?|docs\/(?:guide\/)?[\w.-]+\.md)(?:'s)?,? "([^"]+)"/g)].map((m) => ({
    doc: m[1].startsWith("README") ? "README.md" : m[1],
    section: m[2].replaceAll("`", "").trim(),
  }));
}

describe("document citations in comments", () => {
  for (const folder of FOLDERS) {
    it(`every .md path a comment under ${folder}/ cites exists`, () => {
      const missing = citations(folder, (c) => mdPaths(c.text)).filter((c) => !existsSync(join(ROOT, c.cited)));
      expect(missing.map(where), "cite docs/API.md, docs/ARCHITECTURE.md, docs/SPEC-2026-07-28.md or README.md by their paths").toEqual([]);
    });

    it(`every section of docs/SPEC-2026-07-28.md a comment under ${folder}/ cites exists`, () => {
      const sections = numberedSections("docs/SPEC-2026-07-28.md");
      const bad = citations(folder, (c) =>
        [...c.text.matchAll(/SPEC-2026-07-28\.md((?:,? ?§ ?\d+)+)/g)].flatMap((m) => [...m[1].matchAll(/\d+/g)].map((n) => `§${n[0]}`)),
      ).filter((c) => !sections.has(c.cited.slice(1)));
      expect(bad.map(where)).toEqual([]);
    });

    it(`every quoted README or docs/ section a comment under ${folder}/ names exists`, () => {
      const bad = citations(folder, (c) => sectionCitations(c.text).map((s) => `${s.doc} "${s.section}"`)).filter((c) => {
        const [, doc, section] = /^(\S+) "(.*)"$/.exec(c.cited)!;
        return !existsSync(join(ROOT, doc)) || !headings(doc).some((h) => h === section || h.startsWith(`${section} `) || h.startsWith(`${section}:`));
      });
      expect(bad.map(where)).toEqual([]);
    });

    it(`no comment under ${folder}/ cites a document by a bare name, or the issue tracker`, () => {
      const bad = citations(folder, (c) =>
        [...c.text.matchAll(/(?<![\w/-])(?:API\.md|ARCHITECTURE\.md|SPEC\b(?!-)[^\n]{0,8})|\b[Ii]ssues? #?\d+/g)].map((m) => m[0].trim()),
      );
      expect(bad.map(where)).toEqual([]);
    });
  }

  it.each(FOLDERS)("every source file a comment under %s/ names exists", (folder) => {
    // A name is looked up beside the citing file, from the repository root, from src/, and for a test
    // in the src/ folder its own folder mirrors (a test under test/supervisor/ naming a supervisor file).
    const bad = citations(folder, (c, file) =>
      [...c.text.matchAll(/(?<![\w/.:@-])((?:[\w.-]+\/)*[\w-]+(?:\.[\w-]+)*\.(?:ts|mjs))\b/g)]
        .map((m) => m[1])
        .filter((p) => {
          const mirrored = file.startsWith("test/") ? posix.join("src", posix.dirname(file).slice("test/".length), p) : p;
          const candidates = [posix.join(dirname(file), p), p, posix.join("src", p), mirrored];
          return !candidates.some((candidate) => existsSync(join(ROOT, candidate)));
        }),
    );
    expect(bad.map(where)).toEqual([]);
  });
});
