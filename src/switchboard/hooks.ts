/**
 * Hooks around every Switchboard call. `before` may replace a tool call's arguments (`{ args }`),
 * `approve` may refuse a tool call, `beforeFallback` may refuse or rewrite a move to a fallback server,
 * `after` may replace a result (`{ result }`), `error` observes failures. A `before`, `after` or
 * `error` hook that throws (or rejects) is reported as an `error` event and never breaks the call;
 * an `approve` or `beforeFallback` hook that throws refuses (fail closed). Unset hooks cost nothing.
 */
import type { CallToolResult, Tool } from "../client/types.js";

export interface CallContext {
  /** "tools/call", "resources/read", "prompts/get". */
  method: string;
  /** The name the caller used (qualified), or the URI for reads. */
  name: string;
  /** The server that finally served the call (set before `after`/`error`). */
  server: string | undefined;
  /** Arguments as given (after a `before` hook's replacement). */
  args: unknown;
  startedAt: number;
  /** Servers tried, in order. */
  attempts: string[];
}

/** What an `approve` hook is asked about: one tool call, before it is sent. */
export interface ApprovalRequest {
  /** The server the call goes to (a fallback, if one is used, serves the same tool). */
  server: string;
  /** The tool's name on that server. */
  tool: string;
  /** The qualified name the caller used (`server__tool`). */
  name: string;
  /** The arguments that will be sent (after `before`). */
  args: Record<string, unknown> | undefined;
  /** The tool's annotations as its server lists them (`readOnlyHint`, `destructiveHint`, ...), if known. */
  annotations: Tool["annotations"] | undefined;
}

/** `true` or `{ allow: true }` lets the call go; `false` or `{ allow: false, reason }` refuses it. */
export type ApprovalDecision = boolean | { allow: true } | { allow: false; reason?: string };

/** What a `beforeFallback` hook is asked about: one call about to move from a failed server to its fallback. */
export interface FallbackRequest {
  /** "tools/call", "resources/read", "prompts/get". */
  method: string;
  /** The name the caller used (qualified), or the URI for reads. */
  name: string;
  /** The tool's name on the servers (tool calls only). */
  tool: string | undefined;
  /** The arguments the failed server was given (after `before`, and after an earlier fallback's rewrite). */
  args: unknown;
  /** Whose credentials the call uses (`callTool`'s `principal` option), if any. */
  principal: string | undefined;
  /** The server that failed, or was skipped (down, restarting, circuit open). */
  failed: string;
  /** Its error: what the call rejects with when the move is refused. */
  error: Error;
  /** Why the router would move the call ("server down", "TransportError before the request was delivered", ...). */
  reason: string;
  /** The fallback about to be tried. */
  fallback: string;
  /** Servers tried so far, in order. */
  attempts: readonly string[];
}

/**
 * `false` refuses the move: the call rejects with the failed server's own error. `{ args }` moves it
 * with these arguments instead (tool calls only). Anything else (`undefined`, `true`) lets it move.
 */
export type FallbackDecision = void | boolean | { args: Record<string, unknown> };

export interface SwitchboardHooks {
  /** Before every call. For a tool call, returning `{ args }` replaces the arguments sent. */
  before?(context: CallContext): void | { args?: Record<string, unknown> } | Promise<void | { args?: Record<string, unknown> }>;
  /**
   * Before every tool call (after `before`). A refusal does not reach the server: `callTool` resolves
   * with `{ isError: true, content: [{ type: "text", text: "Call refused: <reason>" }] }`, which the
   * adapters' runners hand to the model like any tool error.
   */
  approve?(request: ApprovalRequest): ApprovalDecision | Promise<ApprovalDecision>;
  /**
   * After every successful call. Returning `{ result }` replaces the result the caller gets (anything
   * else is ignored, so an arrow function's incidental value changes nothing).
   */
  after?(context: CallContext, result: unknown): unknown;
  /**
   * Before a call moves to a fallback server (after the router has decided the move is safe, before
   * the `fallback` event). For calls that must not change meaning: another region, another account.
   * A hook that throws refuses the move; the error then says so and an `error` event reports it.
   */
  beforeFallback?(request: FallbackRequest): FallbackDecision | Promise<FallbackDecision>;
  error?(context: CallContext, error: Error): void;
}

export function runHook(report: (error: Error) => void, hook: (() => void) | undefined): void {
  if (hook === undefined) return;
  try {
    hook();
  } catch (error) {
    report(error instanceof Error ? error : new Error(String(error)));
  }
}

/** Runs `before`; a returned `{ args }` replaces `context.args`. Throws and rejections are reported. */
export async function applyBefore(hook: NonNullable<SwitchboardHooks["before"]>, context: CallContext, report: (error: Error) => void): Promise<boolean> {
  try {
    const returned = await hook(context);
    if (returned !== undefined && returned !== null && typeof returned === "object" && "args" in returned && returned.args !== undefined) {
      context.args = returned.args;
      return true;
    }
  } catch (error) {
    report(error instanceof Error ? error : new Error(String(error)));
  }
  return false;
}

/** Runs `after`; a returned `{ result }` replaces the result. Throws and rejections are reported. */
export async function applyAfter<T>(hook: NonNullable<SwitchboardHooks["after"]>, context: CallContext, result: T, report: (error: Error) => void): Promise<T> {
  try {
    const returned = await hook(context, result);
    return typeof returned === "object" && returned !== null && "result" in returned && returned.result !== undefined ? (returned.result as T) : result;
  } catch (error) {
    report(error instanceof Error ? error : new Error(String(error)));
    return result;
  }
}

/** The refusal reason, or undefined when the call may go. A hook that throws refuses (fail closed). */
export async function refusalOf(hook: NonNullable<SwitchboardHooks["approve"]>, request: ApprovalRequest): Promise<string | undefined> {
  let decision: ApprovalDecision;
  try {
    decision = await hook(request);
  } catch (error) {
    return `the approve hook failed (${error instanceof Error ? error.message : String(error)})`;
  }
  if (decision === true || (typeof decision === "object" && decision !== null && decision.allow === true)) return undefined;
  const reason =
    typeof decision === "object" && decision !== null && typeof decision.reason === "string" && decision.reason !== ""
      ? decision.reason
      : `${request.name} was not approved`;
  return reason;
}

/** The result a refused call resolves with. */
export function refusedResult(reason: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `Call refused: ${reason}` }] };
}

/** What to do about one move to a fallback: go (maybe with new arguments) or stay and fail. */
type FallbackVerdictOfHook = { go: false } | { go: true; args?: Record<string, unknown> };

/**
 * Runs `beforeFallback`. A hook that throws refuses the move (fail closed, like `approve`): the call
 * fails with the failed server's error, its message saying the hook threw, and `report` is told.
 */
export async function fallbackDecision(
  hook: NonNullable<SwitchboardHooks["beforeFallback"]>,
  request: FallbackRequest,
  report: (error: Error) => void,
): Promise<FallbackVerdictOfHook> {
  let decision: FallbackDecision;
  try {
    decision = await hook(request);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    report(new Error(`beforeFallback (${request.name}, "${request.failed}" -> "${request.fallback}"): ${why}`, { cause: error }));
    request.error.message += ` (not moved to fallback "${request.fallback}": the beforeFallback hook threw: ${why})`;
    return { go: false };
  }
  if (decision === false) return { go: false };
  const args = typeof decision === "object" && decision !== null ? (decision as { args?: unknown }).args : undefined;
  return typeof args === "object" && args !== null && !Array.isArray(args) ? { go: true, args: args as Record<string, unknown> } : { go: true };
}
