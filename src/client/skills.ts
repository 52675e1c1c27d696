/**
 * The skills extension (SEP-2640, `io.modelcontextprotocol/skills`): a server publishes Agent Skills as
 * resources and lists them with `skills/list` / `skills/get`, each entry carrying the skill's
 * frontmatter and a digest (and byte length) per file. A host must fetch lazily (SKILL.md when the
 * skill is loaded, a supporting file when it is read, nothing on listing) and must not use a byte it
 * could not verify against the entry. `listSkills` and `getSkill` fetch entries; `loadSkill` reads and
 * verifies SKILL.md and returns a `LoadedSkill` whose `readFile` verifies each file as it is read.
 */
import type { RequestOptions } from "../connection/request-options.js";
import { McpError, MethodNotSupportedError, ProtocolError, SkillVerificationError, type SkillVerificationReason } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";
import type { McpClient } from "./client.js";
import {
  contentBytes,
  fileMismatch,
  frontmatterDifferences,
  parseFrontmatter,
  parseSkillEntry,
  resolveSkillPath,
  skillRoot,
  type Skill,
  type SkillFile,
} from "./skill-verify.js";

export type { Skill, SkillFile } from "./skill-verify.js";

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** How many `skills/list` pages are followed before the server is assumed to loop. */
const MAX_PAGES = 1000;

export interface LoadSkillOptions extends RequestOptions {
  /**
   * Load a skill whose entry has no digests (`resources: "dynamic"`): SKILL.md is still checked
   * against the entry's frontmatter, files are read unverified. Default false: such a skill is refused
   * with `SkillVerificationError` (reason `unverifiable`), as SEP-2640 lets hosts do.
   */
  allowDynamic?: boolean | undefined;
}

/** What `readFile` and `LoadedSkill.text` give: the verified bytes of one file. */
export interface SkillFileContent {
  uri: string;
  bytes: Buffer;
  /** The content as text, when the server sent it as text. */
  text?: string;
  mimeType?: string | undefined;
}

/** Whether the server declared the skills extension (its settings object, e.g. `{ directoryRead: true }`). */
export function skillsExtension(client: McpClient): Record<string, unknown> | undefined {
  const extensions = (client.serverCapabilities as { extensions?: unknown } | undefined)?.extensions;
  const settings = isObject(extensions) ? extensions[SKILLS_EXTENSION] : undefined;
  return isObject(settings) ? settings : undefined;
}

/**
 * Every skill the server lists (`skills/list`, every page). A malformed entry is left out (a host
 * must not load it) and reported as an `error` event; the others are returned.
 */
export async function listSkills(client: McpClient, options?: RequestOptions): Promise<Skill[]> {
  requireExtension(client, "skills/list");
  const skills: Skill[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.request("skills/list", cursor === undefined ? {} : { cursor }, options);
    if (!Array.isArray(result.skills)) throw new ProtocolError(`skills/list from ${serverName(client)}: the result has no skills array`, -32603, result);
    for (const item of result.skills) {
      const skill = parseSkillEntry(item);
      if (typeof skill === "string")
        client.connection.emit("error", new McpError(`skills/list from ${serverName(client)}: skipped a malformed entry (${skill})`));
      else skills.push(skill);
    }
    const next = result.nextCursor;
    if (typeof next !== "string" || next === "") return skills;
    if (seen.has(next))
      throw new ProtocolError(`skills/list from ${serverName(client)}: cursor ${JSON.stringify(next)} came twice; stopping to avoid a loop`, -32603);
    seen.add(next);
    cursor = next;
  }
  throw new ProtocolError(`skills/list from ${serverName(client)}: more than ${MAX_PAGES} pages; stopping`, -32603);
}

/** The current entry of one skill, by its SKILL.md URI (`skills/get`; works for skills no listing shows). */
export async function getSkill(client: McpClient, uri: string, options?: RequestOptions): Promise<Skill> {
  requireExtension(client, "skills/get");
  const result = await client.request("skills/get", { uri }, options);
  const skill = parseSkillEntry(result.skill);
  if (typeof skill === "string") throw new ProtocolError(`skills/get ${uri} from ${serverName(client)}: malformed entry (${skill})`, -32603, result);
  if (skill.uri !== uri) throw new ProtocolError(`skills/get ${uri} from ${serverName(client)}: answered the entry of ${skill.uri}`, -32603, result);
  return skill;
}

/**
 * Loads a skill: reads its SKILL.md (only now: never on listing), checks its length and digest against
 * the entry and its frontmatter field by field, and returns it. Given only a URI, the entry comes from
 * `skills/get` first. Any mismatch rejects with `SkillVerificationError` and the content is not used.
 */
export async function loadSkill(client: McpClient, skill: Skill | string, options: LoadSkillOptions = {}): Promise<LoadedSkill> {
  const entry = typeof skill === "string" ? await getSkill(client, skill, options) : skill;
  if (entry.resources === "dynamic" && !options.allowDynamic) {
    throw refusal(client, entry, entry.uri, "unverifiable", 'its entry lists no digests (resources: "dynamic"); pass allowDynamic: true to load it unverified');
  }
  const content = await readVerified(client, entry, entry.uri, options);
  const text = content.text ?? content.bytes.toString("utf8");
  const frontmatter = parseFrontmatter(text);
  if (frontmatter === undefined) throw refusal(client, entry, entry.uri, "frontmatter", "SKILL.md does not start with YAML frontmatter");
  const differences = frontmatterDifferences(entry.frontmatter, frontmatter);
  if (differences.length > 0) {
    throw refusal(
      client,
      entry,
      entry.uri,
      "frontmatter",
      `SKILL.md frontmatter differs from the entry's in ${differences.map((f) => JSON.stringify(f)).join(", ")}`,
    );
  }
  return new LoadedSkill(client, entry, { ...content, text }, frontmatter);
}

/** A skill whose SKILL.md was read and verified. Its other files are read, and verified, on demand. */
export class LoadedSkill {
  /** The skill's root: its SKILL.md URI without `/SKILL.md`. */
  readonly root: string;
  constructor(
    private readonly client: McpClient,
    /** The entry the skill was loaded from; every read is checked against it. */
    readonly entry: Skill,
    /** SKILL.md, verified. */
    readonly manifest: SkillFileContent & { text: string },
    /** SKILL.md's frontmatter as parsed (equal to the entry's). */
    readonly frontmatter: Record<string, unknown>,
  ) {
    this.root = skillRoot(entry.uri);
  }

  get uri(): string {
    return this.entry.uri;
  }
  get name(): string {
    return this.entry.frontmatter.name;
  }
  get text(): string {
    return this.manifest.text;
  }

  /**
   * Reads a file of the skill: a path relative to the skill's root (`references/FORMS.md`) or a URI.
   * It must be a file the entry lists, and its bytes must match the entry; otherwise this rejects
   * with `SkillVerificationError` (reason `unlisted`, `size` or `digest`).
   */
  readFile(path: string, options?: RequestOptions): Promise<SkillFileContent> {
    const uri = resolveSkillPath(this.entry.uri, path);
    if (uri === undefined) return Promise.reject(refusal(this.client, this.entry, path, "unlisted", "the path leaves the skill's directory"));
    // A dynamic skill (loaded with allowDynamic) lists no files: the directory is the only bound.
    if (this.entry.resources === "dynamic" && !uri.startsWith(`${this.root}/`)) {
      return Promise.reject(refusal(this.client, this.entry, uri, "unlisted", "the file is outside the skill's directory"));
    }
    return readVerified(this.client, this.entry, uri, options);
  }
}

/** Reads `uri` and checks it against the entry (unless the entry is dynamic and that was allowed). */
async function readVerified(client: McpClient, entry: Skill, uri: string, options?: RequestOptions): Promise<SkillFileContent> {
  let file: SkillFile | undefined;
  if (entry.resources !== "dynamic") {
    file = entry.resources.find((f) => f.uri === uri);
    // The entry's list is complete: a file it does not name is a change to the skill.
    if (file === undefined) throw refusal(client, entry, uri, "unlisted", "the skill's entry does not list this file");
  }
  const result = await client.readResource(uri, options);
  const content = contentBytes(result, uri);
  if (content === undefined) throw new ProtocolError(`resources/read ${uri} from ${serverName(client)}: no text or blob content for that URI`, -32603, result);
  if (file !== undefined) {
    const mismatch = fileMismatch(file, content.bytes);
    if (mismatch !== undefined) throw refusal(client, entry, uri, mismatch.reason, mismatch.detail);
  }
  return { uri, ...content };
}

function refusal(client: McpClient, entry: Skill, file: string, reason: SkillVerificationReason, detail: string): SkillVerificationError {
  const what = file === entry.uri ? entry.uri : `${file} (skill ${entry.uri})`;
  return new SkillVerificationError(
    `Skill verification failed for ${what} from ${serverName(client)}: ${detail}. The content was not used; refresh the entry with getSkill() and load the skill again.`,
    { skill: entry.uri, file, reason },
  );
}

function requireExtension(client: McpClient, method: string): void {
  if (skillsExtension(client) !== undefined) return;
  throw new MethodNotSupportedError(`${serverName(client)} does not support ${method}: it did not declare the ${SKILLS_EXTENSION} extension`, {
    method,
    capability: `extensions.${SKILLS_EXTENSION}`,
  });
}

function serverName(client: McpClient): string {
  const name = client.serverInfo?.name;
  return typeof name === "string" ? `server "${name}"` : "the server";
}
