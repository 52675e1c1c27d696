/**
 * The skills extension's verification rules as properties: the right bytes always pass and any
 * changed byte or length fails; frontmatter written as YAML reads back equal to its entry, and one
 * changed field is named; no relative path escapes the skill's directory.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { contentBytes, fileMismatch, frontmatterDifferences, parseFrontmatter, resolveSkillPath, sha256Digest } from "../../src/client/skill-verify.js";

const bytes = fc.uint8Array({ minLength: 0, maxLength: 512 }).map((b) => Buffer.from(b));

describe("file verification", () => {
  it("the entry's own bytes pass; a flipped byte fails the digest; another length fails the size", () => {
    fc.assert(
      fc.property(bytes, fc.nat(), fc.integer({ min: 1, max: 255 }), (content, at, flip) => {
        const file = { uri: "skill://s/f", digest: sha256Digest(content), size: content.byteLength };
        expect(fileMismatch(file, content)).toBeUndefined();
        if (content.byteLength > 0) {
          const changed = Buffer.from(content);
          changed[at % changed.byteLength] ^= flip;
          expect(fileMismatch(file, changed)?.reason).toBe("digest");
        }
        expect(fileMismatch(file, Buffer.concat([content, Buffer.from([0])]))?.reason).toBe("size");
        // Without a size, only the digest can tell.
        expect(fileMismatch({ uri: file.uri, digest: file.digest }, Buffer.concat([content, Buffer.from([0])]))?.reason).toBe("digest");
      }),
    );
  });

  it("a malformed digest never verifies", () => {
    fc.assert(
      fc.property(bytes, (content) => {
        const upper = sha256Digest(content).toUpperCase().replace("SHA256", "sha256");
        expect(fileMismatch({ uri: "u", digest: upper }, content)?.reason).toBe("digest");
      }),
    );
  });

  it("text content is its UTF-8 bytes and blob content its base64-decoded bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), bytes, (text, raw) => {
        expect(contentBytes({ contents: [{ uri: "a", text }] }, "a")!.bytes.equals(Buffer.from(text, "utf8"))).toBe(true);
        expect(contentBytes({ contents: [{ uri: "b", blob: raw.toString("base64") }] }, "b")!.bytes.equals(raw)).toBe(true);
      }),
    );
  });
});

const key = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);
const scalar = fc.oneof(fc.string({ unit: "grapheme", maxLength: 40 }), fc.integer(), fc.boolean());
const frontmatter = fc.record(
  {
    name: fc.stringMatching(/^[a-z0-9]+(-[a-z0-9]+)*$/),
    description: fc.string({ unit: "grapheme", minLength: 1, maxLength: 80 }),
    metadata: fc.dictionary(key, fc.string({ maxLength: 20 }), { maxKeys: 4 }),
    extra: scalar,
  },
  { requiredKeys: ["name", "description"] },
);

describe("frontmatter comparison", () => {
  it("frontmatter written as YAML reads back with no difference from its entry, whatever the key order", () => {
    fc.assert(
      fc.property(frontmatter, fc.string({ maxLength: 60 }), (fields, body) => {
        const reversed = Object.fromEntries(Object.entries(fields).reverse());
        const parsed = parseFrontmatter(`---\n${stringify(reversed)}---\n${body}`);
        expect(parsed).toBeDefined();
        expect(frontmatterDifferences(fields, parsed!)).toEqual([]);
      }),
    );
  });

  it("one changed or added field is named, and nothing else", () => {
    fc.assert(
      fc.property(frontmatter, scalar, (fields, value) => {
        const changed = { ...fields, description: `${fields.description}!` };
        expect(frontmatterDifferences(fields, changed)).toEqual(["description"]);
        expect(frontmatterDifferences(fields, { ...fields, injected: value })).toEqual(["injected"]);
      }),
    );
  });

  it("an absent field equals null, and a file without frontmatter has none", () => {
    expect(frontmatterDifferences({ name: "a", description: "b", license: null }, { name: "a", description: "b" })).toEqual([]);
    expect(parseFrontmatter("# no frontmatter\n")).toBeUndefined();
    expect(parseFrontmatter("---\n- a list\n---\n")).toBeUndefined();
    expect(parseFrontmatter("\uFEFF---\r\nname: x\r\ndescription: y\r\n---\r\nbody")).toEqual({ name: "x", description: "y" });
  });
});

describe("paths inside a skill", () => {
  it("a relative path resolves inside the skill's directory or not at all", () => {
    const segment = fc.constantFrom("..", ".", "", "a", "b", "SKILL.md", "refs");
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), (segments) => {
        const uri = resolveSkillPath("skill://acme/billing/refunds/SKILL.md", segments.join("/"));
        if (uri !== undefined) {
          expect(uri.startsWith("skill://acme/billing/refunds/")).toBe(true);
          expect(uri.split("/").slice(3)).not.toContain("..");
        }
      }),
    );
    expect(resolveSkillPath("skill://acme/billing/refunds/SKILL.md", "references/GUIDE.md")).toBe("skill://acme/billing/refunds/references/GUIDE.md");
  });
});
