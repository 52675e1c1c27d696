/**
 * A server that publishes Agent Skills per SEP-2640 (skills/list, skills/get, files via resources/read),
 * on a ScriptedServer, in either era. No npm server implements the extension, so this is a fixture:
 * tests change `files` (what resources/read serves) apart from the entries (what skills/list promises)
 * to play a tampering or stale server.
 */
import { createHash } from "node:crypto";
import type { JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { modernServer, replyError } from "./modern-server.js";
import { ScriptedServer } from "./scripted-server.js";

export const SKILL_URI = "skill://pdf-processing/SKILL.md";
export const FORMS_URI = "skill://pdf-processing/references/FORMS.md";
export const LOGO_URI = "skill://pdf-processing/assets/logo.png";
export const SKILL_MD =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  version: "2.1"\n---\n\nUse references/FORMS.md for forms.\n';
export const FORMS_MD = "# Forms\n\nFill them in.\n";
export const LOGO = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x10]);

export const sha256 = (bytes: string | Buffer): string => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const size = (bytes: string | Buffer): number => Buffer.byteLength(bytes);

export function pdfSkill(): Record<string, unknown> {
  return {
    uri: SKILL_URI,
    frontmatter: { name: "pdf-processing", description: "Extract, fill, and assemble PDF documents", metadata: { version: "2.1" } },
    resources: [
      { uri: SKILL_URI, digest: sha256(SKILL_MD), size: size(SKILL_MD) },
      { uri: FORMS_URI, digest: sha256(FORMS_MD), size: size(FORMS_MD) },
      { uri: LOGO_URI, digest: sha256(LOGO), size: size(LOGO) },
    ],
  };
}

export interface SkillsServer {
  server: ScriptedServer;
  /** The pages skills/list answers, in order (a cursor names the next page's index). */
  pages: unknown[][];
  /** What resources/read serves, by URI: text or bytes (sent as a blob). */
  files: Map<string, string | Buffer>;
  reads(): string[];
}

export function skillsServer(era: "legacy" | "modern" = "legacy"): SkillsServer {
  const server = era === "modern" ? modernServer() : new ScriptedServer();
  const extensions = { "io.modelcontextprotocol/skills": {} };
  server.capabilities = { resources: {}, extensions };
  const complete = era === "modern" ? { resultType: "complete", ttlMs: 0, cacheScope: "private" } : {};
  if (era === "modern") {
    server.on("server/discover", () => ({ ...complete, supportedVersions: ["2026-07-28"], capabilities: { resources: {}, extensions } }));
  }
  const state: SkillsServer = {
    server,
    pages: [[pdfSkill()]],
    files: new Map<string, string | Buffer>([
      [SKILL_URI, SKILL_MD],
      [FORMS_URI, FORMS_MD],
      [LOGO_URI, LOGO],
    ]),
    reads: () => requests(server, "resources/read").map((r) => (r.params as { uri: string }).uri),
  };
  server.on("skills/list", (request) => {
    const cursor = (request.params as { cursor?: string }).cursor;
    const index = cursor === undefined ? 0 : Number(cursor);
    const next = index + 1 < state.pages.length ? { nextCursor: String(index + 1) } : {};
    return { ...complete, skills: state.pages[index], ...next };
  });
  server.on("skills/get", (request, s) => {
    const uri = (request.params as { uri: string }).uri;
    const skill = state.pages.flat().find((entry) => (entry as { uri?: unknown }).uri === uri);
    return skill === undefined ? replyError(s, request.id, -32602, `No skill is served at ${uri}`) : { ...complete, skill };
  });
  server.on("resources/read", (request, s) => {
    const uri = (request.params as { uri: string }).uri;
    const file = state.files.get(uri);
    if (file === undefined) return replyError(s, request.id, -32602, "Resource not found", { uri });
    const content = typeof file === "string" ? { uri, mimeType: "text/markdown", text: file } : { uri, mimeType: "image/png", blob: file.toString("base64") };
    return { ...complete, contents: [content] };
  });
  return state;
}

export function requests(server: ScriptedServer, method: string): JsonRpcRequest[] {
  return server.received.filter((m): m is JsonRpcRequest => "method" in m && "id" in m && m.method === method);
}
