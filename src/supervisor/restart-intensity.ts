/**
 * The restart intensity limit (OTP's MaxR/MaxT): at most `maxRestarts` restarts within any `withinMs`
 * sliding window. A child that needs more than that is not flaky but broken, and restarting it again
 * only burns CPU and floods logs; the supervisor marks it `down` instead.
 *
 * The state is plain data (the times of the recent restarts) that the child machine keeps in its
 * context and replaces through `assign`; these functions never mutate it.
 */

export interface RestartIntensityLimit {
  /** Restarts allowed within the window; 0 means a failed child is never restarted. */
  maxRestarts: number;
  /** The window, in ms. */
  withinMs: number;
}

export type Clock = () => number;

/** The times (ms) of the restarts still inside the window, oldest first. */
export type RestartHistory = readonly number[];

/** What `tryRestart` decides, with the history to keep. */
export type RestartAttempt =
  | { allowed: true; history: RestartHistory }
  | {
      allowed: false;
      /** Unchanged: a refused restart does not happen, so it is not recorded. */
      history: RestartHistory;
      /** Why the child goes down, for the `down` event: "restarted 5 times within 60000 ms (limit: 5)". */
      reason: string;
    };

/** Throws a `RangeError` naming the first value out of range; config validation catches these earlier. */
export function assertRestartIntensityLimit(limit: RestartIntensityLimit): void {
  if (!(Number.isInteger(limit.maxRestarts) && limit.maxRestarts >= 0)) {
    throw new RangeError(`maxRestarts must be an integer >= 0, got ${limit.maxRestarts}`);
  }
  if (!(Number.isFinite(limit.withinMs) && limit.withinMs > 0)) {
    throw new RangeError(`withinMs must be a finite number > 0, got ${limit.withinMs}`);
  }
}

/** The restarts that still count at `now`: a restart at time t counts while `now - t < withinMs`. */
export function restartsInWindow(history: RestartHistory, limit: RestartIntensityLimit, now: number): RestartHistory {
  let drop = 0;
  for (const at of history) {
    if (now - at < limit.withinMs) break;
    drop++;
  }
  return drop === 0 ? history : history.slice(drop);
}

/**
 * Asks for one restart at `now`. When allowed, the returned history records it; when it would cross
 * the limit it does not happen, and the verdict carries the reason.
 */
export function tryRestart(history: RestartHistory, limit: RestartIntensityLimit, now: number): RestartAttempt {
  const recent = restartsInWindow(history, limit, now);
  const { maxRestarts, withinMs } = limit;
  if (recent.length >= maxRestarts) {
    const times = recent.length === 1 ? "once" : `${recent.length} times`;
    const reason = maxRestarts === 0 ? "restarts are disabled (restart.maxRestarts is 0)" : `restarted ${times} within ${withinMs} ms (limit: ${maxRestarts})`;
    return { allowed: false, history: recent, reason };
  }
  return { allowed: true, history: [...recent, now] };
}

/** Ms until a restart would be allowed again (0 if it is now); Infinity when restarts are disabled. */
export function restartRetryAfterMs(history: RestartHistory, limit: RestartIntensityLimit, now: number): number {
  if (limit.maxRestarts === 0) return Infinity;
  const recent = restartsInWindow(history, limit, now);
  if (recent.length < limit.maxRestarts) return 0;
  // The window must slide past enough old restarts to make room for one more.
  const freeing = recent[recent.length - limit.maxRestarts];
  return freeing === undefined ? 0 : freeing + limit.withinMs - now;
}

/** What `RestartIntensity.tryRestart()` decides. */
export type RestartVerdict = { allowed: true; restartsInWindow: number } | { allowed: false; restartsInWindow: number; reason: string };

/**
 * The same limit as a mutable object with its own clock, for code that keeps one outside a state
 * machine (the child machine keeps the plain `RestartHistory` in its context instead).
 */
export class RestartIntensity {
  readonly limit: RestartIntensityLimit;
  readonly #now: Clock;
  #history: RestartHistory = [];

  constructor(limit: RestartIntensityLimit, now: Clock = Date.now) {
    assertRestartIntensityLimit(limit);
    this.limit = limit;
    this.#now = now;
  }

  /** Restarts inside the window ending now. */
  get count(): number {
    return restartsInWindow(this.#history, this.limit, this.#now()).length;
  }

  /** Asks for one restart now; recorded when allowed. */
  tryRestart(): RestartVerdict {
    const attempt = tryRestart(this.#history, this.limit, this.#now());
    this.#history = attempt.history;
    const restarts = attempt.history.length;
    return attempt.allowed ? { allowed: true, restartsInWindow: restarts } : { allowed: false, restartsInWindow: restarts, reason: attempt.reason };
  }

  /** Ms until a restart would be allowed again (0 if it is now); Infinity when restarts are disabled. */
  retryAfterMs(): number {
    return restartRetryAfterMs(this.#history, this.limit, this.#now());
  }

  /** Forgets every restart. */
  reset(): void {
    this.#history = [];
  }
}
