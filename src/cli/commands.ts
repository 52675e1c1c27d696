/** The commands of `mcp-switchboard` for tools. Each writes to the given output and returns its exit code. */
import type { CallToolResult, Tool } from "../client/types.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { blockText } from "../adapters/content.js";

export interface Output {
  out(line: string): void;
  err(line: string): void;
  /** A terminal to draw progress on (stderr when it is a TTY); absent when piped, so nothing is drawn. */
  progress?: NodeJS.WritableStream | undefined;
}

export async function toolsCommand(board: Switchboard, io: Output, json: boolean): Promise<number> {
  const tools = await board.listTools();
  if (json) {
    io.out(JSON.stringify(tools, null, 2));
    return 0;
  }
  const width = Math.min(40, Math.max(0, ...tools.map((t) => t.name.length)));
  for (const tool of tools) io.out(`${tool.name.padEnd(width)}  ${firstLine(tool)}`);
  const states = Object.values(board.status());
  const notUp = states.filter((status) => status.state !== "up" && status.state !== "disabled").length;
  io.err(`${tools.length} tool${tools.length === 1 ? "" : "s"} from ${states.length} server(s)${notUp > 0 ? ` (${notUp} not up)` : ""}`);
  return 0;
}

export async function callCommand(board: Switchboard, io: Output, name: string, args: Record<string, unknown>, json: boolean): Promise<number> {
  const result = await board.callTool(name, args, {
    onProgress: (p) => io.err(`progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ""}${p.message ? ` ${p.message}` : ""}`),
  });
  if (json) io.out(JSON.stringify(result, null, 2));
  else io.out(renderResult(result));
  return result.isError === true ? 1 : 0;
}

/** The result as a person reads it: each block as text (adapters' wording), or pretty structured content. */
export function renderResult(result: CallToolResult): string {
  const blocks = result.content ?? [];
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
  return blocks.map(blockText).join("\n");
}

function firstLine(tool: Tool): string {
  return (tool.description ?? tool.title ?? "").split("\n", 1)[0] ?? "";
}
