/**
 * Every relative link and anchor in README.md and docs/ resolves: the file (or folder) exists, and an
 * anchor names a heading of its page (GitHub's slugs, with -1, -2 for repeats). And the site's
 * navigation lists every guide page: docs/guide/index.md and typedoc.json's projectDocuments.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

function markdownUnder(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return path === "docs/reference" ? [] : markdownUnder(path);
    return name.endsWith(".md") ? [path] : [];
  });
}
const FILES = ["README.md", ...markdownUnder("docs")];

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose(text: string): string {
  return text.replace(/^( *)(```|~~~)[\s\S]*?^\1\2 *$/gm, "").replace(/`[^`\n]*`/g, "");
}

function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]+>/g, "")
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (anchors) return anchors;
  anchors = new Set();
  const counts = new Map<string, number>();
  const text = readFileSync(join(root, file), "utf8").replace(/^( *)(```|~~~)[\s\S]*?^\1\2 *$/gm, "");
  for (const match of text.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(match[1].replace(/`/g, ""));
    const seen = counts.get(base) ?? 0;
    counts.set(base, seen + 1);
    anchors.add(seen === 0 ? base : `${base}-${seen}`);
  }
  for (const match of text.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
  anchorCache.set(file, anchors);
  return anchors;
}

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  const text = prose(readFileSync(join(root, file), "utf8"));
  for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:: not relative
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const destination = path === "" ? file : relative(root, resolve(dirname(join(root, file)), decodeURIComponent(path)));
    if (!existsSync(join(root, destination))) {
      broken.push(`${file}: ${target} (no ${destination})`);
      continue;
    }
    if (anchor !== undefined && anchor !== "" && destination.endsWith(".md") && !anchorsOf(destination).has(anchor)) {
      broken.push(`${file}: ${target} (no heading #${anchor} in ${destination})`);
    }
  }
  return broken;
}

describe("links in README.md and docs/", () => {
  it("finds the pages", () => {
    expect(FILES).toContain("docs/guide/index.md");
    expect(FILES.length).toBeGreaterThan(10);
  });

  it.each(FILES)("every relative link and anchor of %s resolves", (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it("a broken link or anchor is caught (the checker itself)", () => {
    expect(slug("One connection: `connect(target, options?)`".replace(/`/g, ""))).toBe("one-connection-connecttarget-options");
    expect(slug("Skills (SEP-2640)")).toBe("skills-sep-2640");
    expect(anchorsOf("docs/guide/connecting.md").has("the-cache")).toBe(true);
    expect(anchorsOf("docs/guide/connecting.md").has("no-such-heading")).toBe(false);
  });
});

describe("the README", () => {
  it("fits on a few screens (the reference is in docs/guide/)", () => {
    expect(readFileSync(join(root, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(250);
  });
});

describe("the site's navigation", () => {
  const pages = readdirSync(join(root, "docs/guide"))
    .filter((name) => name.endsWith(".md") && name !== "index.md")
    .sort();

  it("docs/guide/index.md links every guide page", () => {
    const index = readFileSync(join(root, "docs/guide/index.md"), "utf8");
    const listed = [...index.matchAll(/^- \[[^\]]+\]\(([\w-]+\.md)\)$/gm)].map((m) => m[1]).sort();
    expect(listed).toEqual(pages);
  });

  it("typedoc.json builds every guide page into the site", () => {
    const config = JSON.parse(readFileSync(join(root, "typedoc.json"), "utf8")) as { projectDocuments?: string[] };
    const built = (config.projectDocuments ?? []).map((path) => path.replace(/^docs\/guide\//, "")).sort();
    expect(built).toEqual([...pages, "index.md"].sort());
  });
});
