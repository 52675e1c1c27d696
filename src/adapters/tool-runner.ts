/**
 * What the way back from a provider needs: something that lists and calls tools. A `Switchboard`
 * (namespaced names) and an `McpClient` (one server's names) both are.
 */
import type { CallToolResult, Tool } from "../client/types.js";
import { McpError, RequestCancelledError } from "../jsonrpc/errors.js";
import { providerNameIndex } from "./names.js";

export interface ToolHost {
  listTools(): Promise<Tool[]>;
  callTool(name: string, args?: Record<string, unknown>, options?: Record<string, unknown>): Promise<CallToolResult>;
}

export interface RunOptions {
  /** Passed to `callTool` (timeoutMs, signal, onProgress, idempotent, ...). */
  callOptions?: Record<string, unknown>;
}

/** The outcome of one provider tool call: the MCP result, or the error turned into a result the model can read. */
export interface RunOutcome {
  mcpName: string | undefined;
  result: CallToolResult;
  /** Set when the call failed before the tool could answer (unknown tool, bad arguments, transport failure). */
  error?: Error;
}

/** Name indexes per tool list: hosts hand out the same cached array until the list changes. */
const indexes = new WeakMap<readonly Tool[], Map<string, string>>();

function mcpNameOf(tools: readonly Tool[], providerName: string): string | undefined {
  let index = indexes.get(tools);
  if (index === undefined) {
    index = providerNameIndex(tools.map((tool) => tool.name));
    indexes.set(tools, index);
  }
  return index.get(providerName);
}

/**
 * Maps the provider's name back (both hosts cache their tool lists), parses nothing, calls the tool.
 * Failures become results the model can read, except the caller's own cancellation: that stops the
 * agent loop, so it is thrown.
 */
export async function runProviderCall(host: ToolHost, providerName: string, args: unknown, options: RunOptions = {}): Promise<RunOutcome> {
  let mcpName: string | undefined;
  try {
    mcpName = mcpNameOf(await host.listTools(), providerName);
    if (mcpName === undefined) throw new McpError(`No tool named ${providerName} is available`);
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
      throw new McpError(`Arguments for ${providerName} must be a JSON object, got ${Array.isArray(args) ? "an array" : typeof args}`);
    }
    const result = await host.callTool(mcpName, args as Record<string, unknown> | undefined, options.callOptions);
    return { mcpName, result };
  } catch (error) {
    const signal = options.callOptions?.signal as AbortSignal | undefined;
    if (error instanceof RequestCancelledError && signal?.aborted) throw error;
    const failure = error instanceof Error ? error : new Error(String(error));
    return { mcpName, error: failure, result: { isError: true, content: [{ type: "text", text: `Error: ${failure.message}` }] } };
  }
}
