/**
 * Before/after/error hooks around every Switchboard call, for tracing and metrics. A hook that throws
 * is reported as an `error` event and never breaks the call.
 */
export interface CallContext {
  /** "tools/call", "resources/read", "prompts/get". */
  method: string;
  /** The name the caller used (qualified), or the URI for reads. */
  name: string;
  /** The server that finally served the call (set before `after`/`error`). */
  server: string | undefined;
  /** Arguments as given. */
  args: unknown;
  startedAt: number;
  /** Servers tried, in order. */
  attempts: string[];
}

export interface SwitchboardHooks {
  before?(context: CallContext): void;
  after?(context: CallContext, result: unknown): void;
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
