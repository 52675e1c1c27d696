/**
 * What a code run tells whoever watches it: `around` wraps the whole run and each tool call it makes,
 * the way src/agents/events.ts wraps model calls and tool executions, so a tracing layer
 * (src/telemetry/codemode-spans.ts) opens a `code.run` span with one child per call without this
 * folder knowing OpenTelemetry exists.
 */
/** What `around` wraps: a whole run, or one tool call of it. */
export type CodeSpanInfo =
  | { kind: "run"; source: string }
  /** `name` is the Switchboard's qualified name; `server` and `tool` as the code wrote them. */
  | { kind: "call"; name: string; server: string; tool: string };

/** What a wrapped call resolves with, so a span can tell a tool error from a success. */
export interface CodeCallValue {
  isError: boolean;
}

/** What a wrapped run resolves with: how it ended (`name` is the error's, when it failed). */
export interface CodeRunValue {
  outcome: { ok: true } | { ok: false; name: string; message: string };
}

/** `codeMode(board, { events })`: what watches runs (`telemetry.codeModeEvents()`, or your own). */
export interface CodeModeEvents {
  /** Must call `run` once and return (or await) its promise. */
  around?<T>(span: CodeSpanInfo, run: () => Promise<T>): Promise<T>;
}

export function within<T>(events: CodeModeEvents | undefined, span: CodeSpanInfo, run: () => Promise<T>): Promise<T> {
  return events?.around ? events.around(span, run) : run();
}
