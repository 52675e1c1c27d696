/**
 * Which server and tool a qualified name means, and, when the board cannot run it, the error that says
 * why: the server is not up (named, with its state and last error, whether or not any list knew the
 * tool: a `server__tool` name with a configured server's prefix is that server's), or no server has
 * such a tool (with the closest names).
 */
import { McpError, ProtocolError } from "../jsonrpc/errors.js";
import { isToolExposed, parseQualified } from "./namespacing.js";
import type { CallToolResult } from "../client/types.js";
import type { ServerRuntime } from "./server-runtime.js";
import type { ToolIndex } from "./tool-index.js";
import { lookUpTool } from "./tool-lookup.js";
import { ToolChangedError, type ToolPins } from "./tool-pins.js";
import { closestNames, UnknownToolError } from "./tool-errors.js";

/** What resolving a name needs of the board. */
export interface ToolNames {
  readonly separator: string;
  readonly runtimes: ReadonlyMap<string, ServerRuntime>;
  readonly toolIndex: ToolIndex;
  readonly pins: ToolPins | undefined;
}

/** `principal`: a call made for a principal, whose tools may be its own (not in the board's lists). */
export function resolveTool(board: ToolNames, name: string, principal = false): { runtime: ServerRuntime; toolName: string } {
  const known = board.toolIndex.get(name);
  const parsed = known ? { server: known.runtime.name, tool: known.name } : parseQualified(name, board.separator, board.runtimes);
  if (!parsed) throw missingTool(board, name);
  const runtime = board.runtimes.get(parsed.server)!;
  if (board.pins?.isHeld(runtime.name, parsed.tool)) throw new ToolChangedError(name, runtime.name);
  // The aggregated index first: no scan of the server's list on the hot path once listTools() ran.
  const tool = known?.tool ?? runtime.tools.find(parsed.tool);
  if (!isToolExposed(tool ?? { name: parsed.tool }, runtime.entry.tools)) {
    throw new ProtocolError(`Tool "${name}" is not exposed: server "${runtime.name}" filters it out (tools.only / tools.except)`, -32602);
  }
  // An up server whose list is known and lacks the tool: the server would only say "unknown tool", without the names it has.
  if (tool === undefined && !principal && runtime.state === "up" && runtime.tools.list !== undefined) throw missingTool(board, name);
  return { runtime, toolName: parsed.tool };
}

/**
 * Why `name` cannot be called: its server is not up (ServerUnavailableError), or there is no such tool
 * (UnknownToolError, suggesting the closest of `offered`, else of the board's listed names).
 */
export function missingTool(board: ToolNames, name: string, offered?: Iterable<string>): McpError {
  const parsed = parseQualified(name, board.separator, board.runtimes);
  const runtime = parsed === undefined ? undefined : board.runtimes.get(parsed.server);
  if (runtime !== undefined && runtime.state !== "up") return runtime.unavailable(name);
  const suggestions = closestNames(name, offered ?? board.toolIndex.names());
  // The board's own callers (not a model) are told how names are made.
  const detail =
    parsed === undefined && suggestions.length === 0 && offered === undefined
      ? `: expected "<server>${board.separator}<tool>" with one of the servers ${[...board.runtimes.keys()].join(", ")}`
      : "";
  return new UnknownToolError(name, suggestions, detail);
}

/** How long a refused call waits for its server's list to come before it gives the server's own refusal. */
const LIST_WAIT_MS = 2_000;

/**
 * What a call sent before its server's list came (a board just started, as `mcp-switchboard call`
 * runs it) settles with: the server's own answer, unless it refused the call (an error, or an isError
 * result as the SDK's servers give for an unknown name) and the server's list, awaited then (it is
 * on its way), lacks the name; then the board's UnknownToolError with the closest names.
 */
export async function unlistedCall(
  board: ToolNames,
  runtime: ServerRuntime,
  name: string,
  toolName: string,
  call: Promise<CallToolResult>,
): Promise<CallToolResult> {
  // Unknown only when a list came and lacks it: no list in time says nothing, so the server's words stand.
  const unknown = async () => (await lookUpTool(toolName, [runtime], LIST_WAIT_MS)) === undefined && runtime.tools.list !== undefined;
  let result: CallToolResult;
  try {
    result = await call;
  } catch (error) {
    throw error instanceof ProtocolError && (await unknown()) ? missingTool(board, name) : error;
  }
  if (result.isError === true && (await unknown())) throw missingTool(board, name);
  return result;
}
