/**
 * One deadline for a whole 2026-era call. A call may take several round trips (MRTR rounds, task
 * polls) and run the user's handlers between them; without a call-wide bound each round got a fresh
 * timeout and a hanging handler kept the call open forever.
 *
 * The deadline is `maxTotalTimeoutMs ?? timeoutMs ?? requestTimeoutMs` from the call's start. Each
 * round gets the time that remains as its `maxTotalTimeoutMs`, so `resetTimeoutOnProgress` restarts a
 * round's `timeoutMs` clock but never moves the call's deadline: give `maxTotalTimeoutMs` to let a
 * long, progress-reporting multi-round call run past `timeoutMs`.
 *
 * Created lazily by the dialect, only once a call needs a second round trip, so the common one-round
 * request allocates nothing for it. One timer per call (none for an infinite deadline), cleared by
 * `dispose` when the call settles.
 */
import { RequestCancelledError, RequestTimeoutError } from "../../jsonrpc/errors.js";
import type { RequestOptions } from "../request-options.js";
import { timerFor } from "../../util/timers.js";

export class CallScope {
  /** Aborts at the deadline or when the caller's signal aborts, whichever comes first. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly deadline: number;
  private readonly totalMs: number;
  private readonly timer: NodeJS.Timeout | undefined;
  private timedOut = false;

  constructor(
    private readonly method: string,
    private readonly options: RequestOptions | undefined,
    defaultTimeoutMs: number,
    started: number,
  ) {
    this.signal = this.controller.signal;
    this.totalMs = options?.maxTotalTimeoutMs ?? options?.timeoutMs ?? defaultTimeoutMs;
    this.deadline = started + this.totalMs;
    const caller = options?.signal;
    if (caller?.aborted) this.controller.abort(caller.reason);
    else caller?.addEventListener("abort", this.onCallerAbort, { once: true });
    this.timer = this.signal.aborted ? undefined : timerFor(this.expire, this.deadline - performance.now());
  }

  /** ms left before the deadline (never negative; Infinity when there is none). */
  remaining(): number {
    return Math.max(0, this.deadline - performance.now());
  }

  /** The caller's options for one more round trip: the caller's settings, bounded by the call. */
  roundOptions(): RequestOptions {
    return { ...this.options, signal: this.signal, maxTotalTimeoutMs: this.remaining() };
  }

  /** What the call ends with once `signal` aborted: the deadline's timeout, or the caller's cancellation. */
  failure(): Error {
    if (this.timedOut) return this.timeoutError();
    return new RequestCancelledError(`Request ${this.method} was cancelled by the caller`, { cause: this.signal.reason });
  }

  /** `error` as the call should report it: once the scope aborted, its own reason wins. */
  settle(error: unknown): unknown {
    return this.signal.aborted && !(error instanceof RequestTimeoutError) ? this.failure() : error;
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.options?.signal?.removeEventListener("abort", this.onCallerAbort);
  }

  private timeoutError(): RequestTimeoutError {
    const limit = this.options?.maxTotalTimeoutMs !== undefined ? "maxTotalTimeoutMs" : "timeoutMs";
    return new RequestTimeoutError(
      `Request ${this.method} did not complete within ${this.totalMs} ms (${limit}, across all its rounds and input handlers)`,
      this.totalMs,
    );
  }

  private readonly expire = (): void => {
    this.timedOut = true;
    this.controller.abort(this.timeoutError());
  };

  private readonly onCallerAbort = (): void => {
    this.controller.abort(this.options?.signal?.reason);
  };
}
