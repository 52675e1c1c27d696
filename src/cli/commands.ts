/** The commands of `mcp-switchboard`. Each writes to the given output and returns its exit code. */
import type { CallToolResult, Tool } from "../client/types.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { blockText } from "../adapters/content.js";
import { percentile, runLoad } from "./load.js";

export interface Output {
  out(line: string): void;
  err(line: string): void;
}

export async function toolsCommand(board: Switchboard, io: Output, json: boolean): Promise<number> {
  const tools = await board.listTools();
  if (json) {
    io.out(JSON.stringify(tools, null, 2));
    return 0;
  }
  const width = Math.min(40, Math.max(0, ...tools.map((t) => t.name.length)));
  for (const tool of tools) io.out(`${tool.name.padEnd(width)}  ${firstLine(tool)}`);
  io.err(`${tools.length} tool${tools.length === 1 ? "" : "s"} from ${Object.keys(board.status()).length} server(s)`);
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

export async function benchCommand(board: Switchboard, io: Output, name: string, args: Record<string, unknown>, requests: number, concurrency: number): Promise<number> {
  await board.callTool(name, args); // warm up, and fail early on a wrong name
  const load = await runLoad(requests, concurrency, () => board.callTool(name, args, { throwOnError: true }));
  const sorted = [...load.latenciesMs].sort((a, b) => a - b);
  io.out(`${name}: ${requests} calls at concurrency ${concurrency} in ${load.seconds.toFixed(2)} s`);
  io.out(`  ${Math.round(requests / load.seconds).toLocaleString("en-US")} req/s, p50 ${percentile(sorted, 50).toFixed(2)} ms, p99 ${percentile(sorted, 99).toFixed(2)} ms, ${load.failures} failed`);
  return load.failures > 0 ? 1 : 0;
}

/** The result as a person reads it: each block as text (adapters' wording), or pretty structured content. */
export function renderResult(result: CallToolResult): string {
  const blocks = result.content ?? [];
  if (blocks.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
  return blocks.map(blockText).join("\n");
}

function firstLine(tool: Tool): string {
  return (tool.description ?? tool.title ?? "").split("\n")[0];
}
