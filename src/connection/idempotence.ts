/**
 * The one rule for "may this tool call run twice?". The connection uses it to re-send a 2026-era call
 * whose stream broke; the supervisor uses it to move a failed call to a fallback server. It lives here,
 * below both, because the connection must not import the supervisor.
 */

/** The parts of an MCP `Tool` that speak to idempotence. */
export interface ToolIdempotenceHints {
  annotations?: {
    readOnlyHint?: boolean;
    idempotentHint?: boolean;
  };
}

/**
 * Whether a call to `tool` may safely run twice. The caller's explicit option wins either way:
 * annotations are hints from the server (the spec warns they may be wrong), and the caller may know
 * better in both directions. Without it: `readOnlyHint` or `idempotentHint` true.
 */
export function isIdempotentTool(tool: ToolIdempotenceHints | undefined, callerOption?: boolean): boolean {
  if (callerOption !== undefined) return callerOption;
  const hints = tool?.annotations;
  return hints?.readOnlyHint === true || hints?.idempotentHint === true;
}
