/**
 * The pure half of the skills extension (SEP-2640): what a skill entry must look like, the bytes a
 * `resources/read` result carries, and the three checks a host owes every file it retrieves (byte
 * length, SHA-256 digest, and for SKILL.md the frontmatter against the entry's). No I/O here, so the
 * rules are tested on their own (test/client/skill-verify.property.test.ts).
 */
import { createHash } from "node:crypto";
import { parse as parseYaml } from "yaml";
import { isObject } from "../util/guards.js";

/** One file of a skill, as its entry lists it. */
export interface SkillFile {
  uri: string;
  /** `sha256:` and 64 lowercase hex digits: the SHA-256 of the file's raw bytes. */
  digest: string;
  /** The file's length in bytes (the same bytes the digest covers), when the server gives it. */
  size?: number;
}

/** A skill entry: an item of `skills/list`, or the `skill` of `skills/get`. */
export interface Skill {
  /** The skill's SKILL.md URI (`skill://<skill-path>/SKILL.md`). */
  uri: string;
  /** The SKILL.md YAML frontmatter as JSON: `name`, `description` and whatever else the author wrote. */
  frontmatter: { name: string; description: string; [field: string]: unknown };
  /** Every file of the skill with its digest, or `"dynamic"` (no digests: generated content). */
  resources: SkillFile[] | "dynamic";
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** The entry as a `Skill`, or why it is not one (hosts must not load a malformed entry). */
export function parseSkillEntry(value: unknown): Skill | string {
  if (!isObject(value)) return "the entry is not an object";
  const { uri, frontmatter, resources } = value;
  if (typeof uri !== "string" || uri === "") return "the entry has no uri";
  if (!isObject(frontmatter) || typeof frontmatter.name !== "string" || typeof frontmatter.description !== "string") {
    return `${uri}: frontmatter must be an object with string name and description`;
  }
  // Early drafts of SEP-2640 omitted `resources` for generated skills; later ones say "dynamic".
  if (resources === undefined || resources === "dynamic") return { uri, frontmatter: frontmatter as Skill["frontmatter"], resources: "dynamic" };
  if (!Array.isArray(resources)) return `${uri}: resources must be an array or "dynamic"`;
  const files: SkillFile[] = [];
  for (const file of resources) {
    if (!isObject(file) || typeof file.uri !== "string" || typeof file.digest !== "string") return `${uri}: every resources[] item needs a uri and a digest`;
    if (file.size !== undefined && !(Number.isSafeInteger(file.size) && (file.size as number) >= 0))
      return `${uri}: ${file.uri} has size ${JSON.stringify(file.size)}, not a byte count`;
    files.push(file.size === undefined ? { uri: file.uri, digest: file.digest } : { uri: file.uri, digest: file.digest, size: file.size as number });
  }
  return { uri, frontmatter: frontmatter as Skill["frontmatter"], resources: files };
}

/** The raw bytes of `uri` in a `resources/read` result (text as UTF-8, blob from base64), if present. */
export function contentBytes(result: unknown, uri: string): { bytes: Buffer; text?: string; mimeType?: string | undefined } | undefined {
  const contents = isObject(result) && Array.isArray(result.contents) ? result.contents.filter(isObject) : [];
  const item = contents.find((c) => c.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
  if (item === undefined) return undefined;
  const mimeType = typeof item.mimeType === "string" ? item.mimeType : undefined;
  if (typeof item.text === "string") return { bytes: Buffer.from(item.text, "utf8"), text: item.text, mimeType };
  if (typeof item.blob === "string") return { bytes: Buffer.from(item.blob, "base64"), mimeType };
  return undefined;
}

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** Why `bytes` are not the file the entry lists, or undefined when they are. The length is checked first: it is free. */
export function fileMismatch(file: SkillFile, bytes: Uint8Array): { reason: "size" | "digest"; detail: string } | undefined {
  if (file.size !== undefined && bytes.byteLength !== file.size) {
    return { reason: "size", detail: `${bytes.byteLength} bytes where the entry says ${file.size}` };
  }
  if (!DIGEST.test(file.digest))
    return { reason: "digest", detail: `the entry's digest ${JSON.stringify(file.digest)} is not sha256: and 64 lowercase hex digits` };
  const actual = sha256Digest(bytes);
  if (actual !== file.digest) return { reason: "digest", detail: `digest ${actual} where the entry says ${file.digest}` };
  return undefined;
}

/**
 * The YAML frontmatter at the start of a SKILL.md, as JSON (YAML 1.2 core schema, a leading BOM
 * allowed), or undefined when there is none or it is not a mapping.
 */
export function parseFrontmatter(text: string): Record<string, unknown> | undefined {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text.startsWith("\uFEFF") ? text.slice(1) : text);
  if (match === null) return undefined;
  try {
    const parsed: unknown = parseYaml(match[1]!);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The fields on which two frontmatters differ (key order is irrelevant; an absent field equals null). */
export function frontmatterDifferences(entry: Record<string, unknown>, actual: Record<string, unknown>): string[] {
  const fields = new Set([...Object.keys(entry), ...Object.keys(actual)]);
  return [...fields].filter((field) => !jsonEqual(entry[field] ?? null, actual[field] ?? null)).sort();
}

/** Equality of JSON values: key order and object prototypes do not matter, types and values do. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return Number.isNaN(a) && Number.isNaN(b);
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  const other = b as Record<string, unknown>;
  return keysA.length === keysB.length && keysA.every((k) => Object.hasOwn(other, k) && jsonEqual((a as Record<string, unknown>)[k], other[k]));
}

/**
 * The URI a path names inside the skill whose SKILL.md is `skillUri`: a URI is taken as it is, a
 * relative path resolves against the skill's root (the directory holding SKILL.md). Undefined when
 * the path climbs out of the root.
 */
export function resolveSkillPath(skillUri: string, path: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) return path;
  const root = skillRoot(skillUri);
  const segments: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.pop() === undefined) return undefined;
      continue;
    }
    segments.push(segment);
  }
  return segments.length === 0 ? undefined : `${root}/${segments.join("/")}`;
}

/** `skill://a/b/SKILL.md` -> `skill://a/b`. */
export function skillRoot(skillUri: string): string {
  const slash = skillUri.lastIndexOf("/");
  return slash < 0 ? skillUri : skillUri.slice(0, slash);
}
