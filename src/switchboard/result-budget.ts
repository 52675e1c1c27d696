/**
 * Result budgets: what reaches a model from one tool call is bounded by `maxResultChars`, so one tool
 * that answers with megabytes cannot fill the context window (or the bill). Text counts by characters,
 * images, audio and blobs by their decoded bytes, structured content by its JSON. Blocks are kept in
 * order while they fit; a text block that crosses the line is cut there; what does not fit is left out
 * and a note says how much, and how to get the rest. The caller of `board.callTool` still gets the whole
 * result: only the runners (adapters, runAgent) apply the budget, on the way to the model.
 */
import type { CallToolResult } from "../client/types.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { display, isObject } from "../util/guards.js";

type Block = CallToolResult["content"][number];

/** `value` as a budget: undefined or a whole number >= 1; anything else is a ConfigError naming `field`. */
export function checkMaxResultChars(value: unknown, field: string, server?: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new ConfigError(`expected a whole number of characters >= 1, found ${typeof value === "string" ? JSON.stringify(value) : display(value)}`, {
      field,
      server,
    });
  }
  return value;
}

/** The first budget given: a call's own, then the run's, then the host's for this tool. */
export function budgetOf(callOptions: Record<string, unknown> | undefined, run: number | undefined, host: unknown, name: string): number | undefined {
  const call = checkMaxResultChars(callOptions?.maxResultChars, "callOptions.maxResultChars");
  if (call !== undefined || run !== undefined) return call ?? run;
  const lookup = isObject(host) ? host.maxResultCharsFor : undefined;
  return typeof lookup === "function" ? (lookup.call(host, name) as number | undefined) : undefined;
}

/** What a block costs against the budget. */
function sizeOf(block: Block): number {
  switch (block.type) {
    case "text":
      return block.text.length;
    case "image":
    case "audio":
      return decodedBytes(block.data);
    case "resource":
      return "text" in block.resource ? block.resource.text.length : decodedBytes(block.resource.blob);
    default:
      return JSON.stringify(block).length;
  }
}

function decodedBytes(base64: string): number {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** The result as a model may see it under `maxChars`; the same object when it fits. */
export function cutResult(result: CallToolResult, maxChars: number | undefined, tool: string): CallToolResult {
  if (maxChars === undefined) return result;
  const structured = result.structuredContent === undefined ? undefined : JSON.stringify(result.structuredContent);
  // Structured content repeats the text for models that read it; alone, it is cut as its JSON text.
  const given = Array.isArray(result.content) ? result.content : [];
  const content: Block[] = given.length === 0 && structured !== undefined ? [{ type: "text", text: structured }] : given;
  const total = content.reduce((sum, block) => sum + sizeOf(block), 0);
  if (total <= maxChars && (structured === undefined || structured.length <= maxChars)) return result;
  const { structuredContent: _dropped, ...others } = result;
  if (total <= maxChars) return { ...others, content };
  let left = maxChars;
  const kept: Block[] = [];
  const links: string[] = [];
  let omittedBlocks = 0;
  for (const block of content) {
    const size = sizeOf(block);
    if (block.type === "resource_link") links.push(block.uri);
    else if (block.type === "resource") links.push(block.resource.uri);
    if (size <= left) {
      kept.push(block);
      left -= size;
    } else if (block.type === "text" && left > 0) {
      kept.push({ ...block, text: block.text.slice(0, left) });
      left = 0;
    } else {
      omittedBlocks++;
    }
  }
  const shown = maxChars - left;
  const whole = total;
  const rest =
    links.length > 0
      ? `read ${links.length === 1 ? "the resource" : "the resources"} ${links.slice(0, 3).join(", ")}`
      : `call ${tool} again asking for less (a narrower query, a page, a range)`;
  const parts = omittedBlocks > 0 ? ` (${omittedBlocks} content block${omittedBlocks === 1 ? "" : "s"} left out whole)` : "";
  kept.push({
    type: "text",
    text: `[Result cut to fit ${maxChars} characters: ${whole - shown} of ${whole} left out${parts}. For the rest, ${rest}.]`,
  });
  return { ...others, content: kept };
}
