/**
 * Pure decisions for fallback routing: may a failed call be sent to the next server in its list?
 *
 * The rule (docs/ARCHITECTURE.md, "Supervisor"): move only when the failure is about *where* the call went
 * (`retryable`), and never re-send work that may already have happened unless doing it twice is safe.
 * - Errors about the call itself never move: the tool said no (`ToolError`, or an `isError` result,
 *   which is not an error at all), the server rejected the request (`ProtocolError`: invalid params,
 *   unknown tool, ...), the caller cancelled (`RequestCancelledError`).
 * - A retryable error with `delivered: false` (refused, never sent, local overload, circuit open) moves.
 * - A retryable error with `delivered: true` (timeout after sending, connection lost while pending)
 *   moves only for idempotent calls.
 */
import { McpError, ProtocolError, RequestCancelledError, ToolError } from "../jsonrpc/errors.js";

export interface FallbackContext {
  /** Whether running the call twice is safe; see `isIdempotentTool`. */
  idempotent: boolean;
}

export type FallbackVerdict = { move: true; reason: string } | { move: false; reason: string };

/** Decides, and says why (the reason goes into the `fallback` event, or the log when it stays). */
export function fallbackVerdict(error: unknown, context: FallbackContext): FallbackVerdict {
  if (error instanceof ToolError) return { move: false, reason: "the tool reported an error" };
  if (error instanceof RequestCancelledError) return { move: false, reason: "the call was cancelled" };
  if (error instanceof ProtocolError) {
    return { move: false, reason: `the server rejected the request (error ${error.code})` };
  }
  if (!(error instanceof McpError)) return { move: false, reason: "not an MCP error" };
  if (!error.retryable) return { move: false, reason: `${error.name} is not retryable` };
  if (!error.delivered) return { move: true, reason: `${error.name} before the request was delivered` };
  if (context.idempotent) {
    return { move: true, reason: `${error.name} after the request may have run; the call is idempotent` };
  }
  return {
    move: false,
    reason: `${error.name} after the request may have run; the call is not idempotent, so it is not re-sent`,
  };
}

export function shouldMoveToFallback(error: unknown, context: FallbackContext): boolean {
  return fallbackVerdict(error, context).move;
}

// The idempotence rule is the connection's too (a 2026-era re-send after a lost stream): one rule, below both.
export { isIdempotentTool, type ToolIdempotenceHints } from "../connection/idempotence.js";

/**
 * The servers a call may go to, in order: the primary, then its fallbacks (not transitive: a
 * fallback's own fallbacks are not followed, so routing never loops), without repeats.
 */
export function routeOrder(primary: string, fallbacks: readonly string[]): string[] {
  return [...new Set([primary, ...fallbacks])];
}
