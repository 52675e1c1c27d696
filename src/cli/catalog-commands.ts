/**
 * The commands for what servers offer besides tools, like the MCP Inspector's CLI: `resources`,
 * `read <uri>`, `prompts`, `prompt <name> [json-args]`. Text for people, `--json` for scripts.
 */
import { blockText } from "../adapters/content.js";
import type { GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate } from "../client/types.js";
import { McpError } from "../jsonrpc/errors.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { columns } from "./columns.js";
import type { Output } from "./commands.js";
import { UsageError } from "./usage.js";

type Owned<T> = T & { server: string };

/** Resource templates of every server that has resources (the Switchboard aggregates resources only). */
async function listTemplates(board: Switchboard, io: Output): Promise<Owned<ResourceTemplate>[]> {
  const lists = await Promise.all(
    Object.keys(board.status()).map(async (server) => {
      const client = board.client(server);
      if (!client?.serverCapabilities?.resources) return [];
      try {
        return (await client.listResourceTemplates()).map((template) => ({ ...template, server }));
      } catch (error) {
        io.err(`server "${server}": resources/templates/list failed: ${(error as Error).message}`);
        return [];
      }
    }),
  );
  return lists.flat();
}

export async function resourcesCommand(board: Switchboard, io: Output, json: boolean): Promise<number> {
  const [resources, resourceTemplates] = await Promise.all([board.listResources(), listTemplates(board, io)]);
  if (json) {
    io.out(JSON.stringify({ resources, resourceTemplates }, null, 2));
    return 0;
  }
  if (resources.length > 0) {
    for (const line of columns([
      ["SERVER", "URI", "NAME", "MIME TYPE", "DESCRIPTION"],
      ...resources.map((r) => [r.server, r.uri, r.name, r.mimeType ?? "", firstLine(r)]),
    ]))
      io.out(line);
  }
  if (resourceTemplates.length > 0) {
    if (resources.length > 0) io.out("");
    for (const line of columns([
      ["SERVER", "URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"],
      ...resourceTemplates.map((t) => [t.server, t.uriTemplate, t.name, t.mimeType ?? "", firstLine(t)]),
    ]))
      io.out(line);
  }
  io.err(
    `${plural(resources.length, "resource")}, ${plural(resourceTemplates.length, "template")} from ${plural(Object.keys(board.status()).length, "server")}`,
  );
  return 0;
}

export async function readCommand(board: Switchboard, io: Output, uri: string, server: string | undefined, json: boolean): Promise<number> {
  const owner = server ?? (await ownerOf(board, io, uri));
  const result = await board.readResource(uri, { server: owner });
  if (json) io.out(JSON.stringify(result, null, 2));
  else for (const line of renderContents(result, owner)) io.out(line);
  return 0;
}

/**
 * The one server that lists `uri`, or whose template matches it. Two or more: the caller must say which
 * (--server), a usage error; none: a failure that says where to look.
 */
async function ownerOf(board: Switchboard, io: Output, uri: string): Promise<string> {
  const listed = new Set((await board.listResources()).filter((r) => r.uri === uri).map((r) => r.server));
  const owners = listed.size > 0 ? listed : new Set((await listTemplates(board, io)).filter((t) => matchesTemplate(t.uriTemplate, uri)).map((t) => t.server));
  const [only, ...others] = owners;
  if (only !== undefined && others.length === 0) return only;
  if (owners.size > 1) throw new UsageError(`${uri} is offered by the servers ${[...owners].join(", ")}: pass --server NAME to pick one`);
  throw new McpError(
    `No server lists resource ${uri} or has a template that matches it (see \`mcp-switchboard resources\`); pass --server NAME to ask one anyway`,
  );
}

/** RFC 6570 templates, loosely: `{x}` is one path segment, `{+x}` and the other operators anything. */
export function matchesTemplate(template: string, uri: string): boolean {
  const pattern = template
    .split(/(\{[^}]*\})/)
    .map((part) => (part.startsWith("{") ? (/^\{[A-Za-z0-9_.%,]+\}$/.test(part) ? "[^/?#]+" : ".*") : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${pattern}$`).test(uri);
}

function renderContents(result: ReadResourceResult, server: string): string[] {
  const lines: string[] = [];
  const many = result.contents.length > 1;
  for (const content of result.contents) {
    if (many) lines.push(`--- ${content.uri}${content.mimeType ? ` (${content.mimeType})` : ""} from ${server}`);
    if ("text" in content && typeof content.text === "string") lines.push(content.text.replace(/\n$/, ""));
    else if ("blob" in content && typeof content.blob === "string") {
      lines.push(
        `[binary ${content.uri}: ${content.mimeType ?? "no mime type"}, ${Buffer.byteLength(content.blob, "base64").toLocaleString("en-US")} bytes; --json shows it as base64]`,
      );
    }
  }
  if (result.contents.length === 0) lines.push(`(${server} returned no contents)`);
  return lines;
}

export async function promptsCommand(board: Switchboard, io: Output, json: boolean): Promise<number> {
  const prompts = await board.listPrompts();
  if (json) {
    io.out(JSON.stringify(prompts, null, 2));
    return 0;
  }
  if (prompts.length > 0)
    for (const line of columns([["PROMPT", "ARGUMENTS (* required)", "DESCRIPTION"], ...prompts.map((p) => [p.name, argumentList(p), firstLine(p)])]))
      io.out(line);
  io.err(`${plural(prompts.length, "prompt")} from ${plural(Object.keys(board.status()).length, "server")}`);
  return 0;
}

export async function promptCommand(board: Switchboard, io: Output, name: string, args: Record<string, string>, json: boolean): Promise<number> {
  const result = await board.getPrompt(name, args);
  if (json) io.out(JSON.stringify(result, null, 2));
  else for (const line of renderPrompt(result)) io.out(line);
  return 0;
}

function renderPrompt(result: GetPromptResult): string[] {
  const lines: string[] = result.description ? [result.description, ""] : [];
  result.messages.forEach((message, i) => {
    if (i > 0) lines.push("");
    lines.push(`[${message.role}]`, blockText(message.content));
  });
  return lines;
}

function argumentList(prompt: Prompt): string {
  return (prompt.arguments ?? []).map((a) => `${a.name}${a.required ? "*" : ""}`).join(", ");
}

function firstLine(item: Resource | ResourceTemplate | Prompt): string {
  return (item.description ?? item.title ?? "").split("\n", 1)[0] ?? "";
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
