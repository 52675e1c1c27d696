/**
 * The host side of `await tools.server.tool(args)`: the engine hands over the names and the arguments
 * as JSON text; the call goes through `board.callTool` with the run's signal, so hooks, approval,
 * limits, breakers, fallbacks and telemetry apply exactly as for any other caller. The answer goes
 * back as JSON text: `structuredContent` when the tool gave one, else its text; an error result or a
 * failed call becomes a thrown error inside the code, its message naming the tool.
 */
import type { CallToolResult } from "../client/types.js";
import { qualify } from "../switchboard/namespacing.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { ServerUnavailableError } from "../switchboard/tool-errors.js";
import { asError, isObject } from "../util/guards.js";
import type { HostCall } from "./engine.js";
import { within, type CodeCallValue, type CodeModeEvents } from "./events.js";

/** One tool call a run made. */
export interface CodeCall {
  /** The Switchboard's qualified name (`math__add`). */
  tool: string;
  /** From the call's start to its answer, in ms. */
  durationMs: number;
  /** The tool answered with an error result, or the call failed. */
  isError: boolean;
}

export interface BridgeContext {
  board: Switchboard;
  /** server -> tool (as the code names it) -> qualified name, for the tools this run may call. */
  index: ReadonlyMap<string, ReadonlyMap<string, string>>;
  signal: AbortSignal;
  callOptions: Record<string, unknown> | undefined;
  events: CodeModeEvents | undefined;
  calls: CodeCall[];
}

type Reply = { ok: true; value: unknown } | { ok: false; name: string; message: string };

export function bridge(context: BridgeContext): HostCall {
  return async (server, tool, argsText) => JSON.stringify(await callOne(context, server, tool, argsText));
}

async function callOne(context: BridgeContext, server: string, tool: string, argsText: string): Promise<Reply> {
  const label = `tools[${JSON.stringify(server)}][${JSON.stringify(tool)}]`;
  const name = context.index.get(server)?.get(tool);
  if (name === undefined) return unknownTool(context, server, tool, label);
  let args: unknown;
  try {
    args = JSON.parse(argsText);
  } catch {
    return { ok: false, name: "TypeError", message: `${label}: the arguments are not JSON data` };
  }
  if (!isObject(args)) return { ok: false, name: "TypeError", message: `${label}: the arguments must be one object` };
  const began = performance.now();
  let reply: Reply;
  try {
    const result = await within(context.events, { kind: "call", name, server, tool }, async (): Promise<CallToolResult & CodeCallValue> => {
      const answer = await context.board.callTool(name, args, { ...context.callOptions, signal: context.signal });
      return { ...answer, isError: answer.isError === true };
    });
    reply = result.isError
      ? { ok: false, name: "ToolError", message: `${label}: ${textOf(result) || "the tool reported an error"}` }
      : { ok: true, value: valueOf(result) };
  } catch (error) {
    const failure = asError(error);
    reply = { ok: false, name: failure.name, message: `${label}: ${failure.message}` };
  }
  // A call cut short by the run's own end (an abort, the deadline) is not one the code saw end.
  if (!context.signal.aborted) context.calls.push({ tool: name, durationMs: performance.now() - began, isError: !reply.ok });
  return reply;
}

/** A call the index cannot place: the board names a server that is not up, else the names there are. */
function unknownTool(context: BridgeContext, server: string, tool: string, label: string): Reply {
  const why = context.board.missingTool(qualify(server, tool, context.board.separator), []);
  if (why instanceof ServerUnavailableError) return { ok: false, name: "ToolError", message: `${label}: ${why.message}` };
  const names = context.index.get(server);
  const there = names === undefined ? `the servers are: ${[...context.index.keys()].join(", ")}` : `this server has: ${[...names.keys()].join(", ")}`;
  return { ok: false, name: "ToolError", message: `unknown tool ${label}; ${there}` };
}

function valueOf(result: CallToolResult): unknown {
  return isObject(result.structuredContent) ? result.structuredContent : textOf(result);
}

/** The result's text blocks joined; other blocks are named, not inlined (the code gets data, not media). */
function textOf(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "image" || block.type === "audio") parts.push(`[${block.type} ${block.mimeType} left out]`);
    else if (block.type === "resource_link") parts.push(`[resource ${block.uri}]`);
    else if (block.type === "resource") parts.push("text" in block.resource ? block.resource.text : `[resource ${block.resource.uri} left out]`);
  }
  return parts.join("\n");
}
