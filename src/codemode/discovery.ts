/**
 * What the model reads about the tools, sized to the catalog: `run_code`'s description carries every
 * declaration while they fit in `MAX_DESCRIPTION_CHARS`; past that it carries an index (each server's
 * tool names, or only the servers when even the names do not fit) and the model finds what it needs
 * with `search_tools`, whose answer is the TypeScript declarations of the tools found. With 154 tools
 * the declarations alone were 115,171 characters, sent on every turn.
 */
import type { Tool } from "../client/types.js";
import { SEARCH_TOOL_NAME, SEARCH_TOOL_SCHEMA } from "../adapters/deferred.js";
import { declarationsOf, propertyKey, type ServerTools } from "./declarations.js";

export const RUN_CODE = "run_code";

/** `run_code`'s description stays under this, whatever the catalog's size. */
export const MAX_DESCRIPTION_CHARS = 8_000;

const PREAMBLE = [
  "Runs JavaScript or TypeScript in a sandbox, as the body of an async function: `await` tool calls, combine their results, and `return` only what is needed (JSON data).",
  "Many calls at once: `await Promise.all([...])`. `console.log` output comes back with the result. No network, files, `require` or `import`: only `tools`.",
];

const SEARCH_HINT = `There are too many tools to declare here. Call \`${SEARCH_TOOL_NAME}\` first: it answers with the TypeScript declarations of the tools that match, which you then call here as \`tools.<server>.<tool>(args)\`.`;

/** `search_tools` beside `run_code`: its answer is declarations, not tool definitions. */
export const CODE_SEARCH_TOOL: Tool = {
  name: SEARCH_TOOL_NAME,
  description: `Search the tools \`${RUN_CODE}\` can call by what you want to do. Answers with their TypeScript declarations (\`tools.<server>.<tool>\`). Use it before saying a tool is missing.`,
  inputSchema: SEARCH_TOOL_SCHEMA as unknown as Tool["inputSchema"],
};

/**
 * How much of the catalog `run_code`'s description carries: `"auto"`, every declaration while they fit,
 * else each server's tool names, else the servers; `"servers"`, the servers alone (deferred loading,
 * where the model searches anyway).
 */
export type ToolIndex = "auto" | "servers";

/** `run_code` with its description: the declarations when they fit, else an index and the search hint. */
export function runCodeTool(servers: readonly ServerTools[], declarations: string, index: ToolIndex = "auto"): { tool: Tool; inlined: boolean } {
  const inline = [...PREAMBLE, "", "```ts", declarations.trimEnd(), "```"].join("\n");
  const inlined = index === "auto" && inline.length <= MAX_DESCRIPTION_CHARS;
  return { tool: { name: RUN_CODE, description: inlined ? inline : indexed(servers, index === "auto"), inputSchema: RUN_CODE_SCHEMA }, inlined };
}

const RUN_CODE_SCHEMA: Tool["inputSchema"] = {
  type: "object",
  properties: { code: { type: "string", description: "The code: the body of an async function; `return` the answer." } },
  required: ["code"],
};

function indexed(servers: readonly ServerTools[], withNames: boolean): string {
  const head = [...PREAMBLE, "", SEARCH_HINT, "", withNames ? "The servers and their tools:" : "The servers:"].join("\n");
  const names = servers.map(({ server, tools }) => `- tools${member(server)}: ${tools.map((entry) => entry.name).join(", ")}`);
  const full = [head, ...names].join("\n");
  if (withNames && full.length <= MAX_DESCRIPTION_CHARS) return full;
  const counts = servers.map(({ server, tools }) => `- tools${member(server)} (${tools.length} tools)`);
  let text = head;
  for (const [i, line] of counts.entries()) {
    const rest = `\n… and ${counts.length - i} more servers`;
    if (text.length + line.length + 1 + rest.length > MAX_DESCRIPTION_CHARS) return text + rest;
    text += `\n${line}`;
  }
  return text;
}

/** What the model reads back from a search: the declarations of the tools found, grouped by server. */
export function declarationsFound(query: string, found: readonly ServerTools[]): string {
  const count = found.reduce((sum, group) => sum + group.tools.length, 0);
  if (count === 0) return `No tools match "${query}". Try other words.`;
  const names = found.flatMap(({ server, tools }) => tools.map((entry) => `tools${member(server)}${member(entry.name)}`));
  return [`Found ${count} tools, for ${RUN_CODE}: ${names.join(", ")}`, "```ts", declarationsOf(found).trimEnd(), "```"].join("\n");
}

/** `.name`, or `["na-me"]` when the name is not an identifier. */
function member(name: string): string {
  const key = propertyKey(name);
  return key.startsWith('"') ? `[${key}]` : `.${key}`;
}
