/** `throwOnError`: a tool result with `isError: true` becomes a `ToolError` naming the tool and its first text. */
import { ToolError } from "../jsonrpc/errors.js";
import type { CallToolResult } from "./types.js";

export function throwIfToolError(name: string, result: CallToolResult): CallToolResult {
  if (result.isError === true) throw new ToolError(`Tool ${name} reported an error: ${firstText(result) ?? "(no text)"}`, name, result);
  return result;
}

function firstText(result: CallToolResult): string | undefined {
  for (const block of result.content ?? []) if (block.type === "text") return block.text;
  return undefined;
}
