/**
 * Hooks around every Switchboard call. `before` may replace a tool call's arguments (`{ args }`),
 * `approve` may refuse a tool call, `after` may replace a result (`{ result }`), `error` observes failures. A `before`, `after` or
 * `error` hook that throws (or rejects) is reported as an `error` event and never breaks the call;
 * an `approve` hook that throws refuses the call (fail closed). Unset hooks cost nothing.
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
