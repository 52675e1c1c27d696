/**
 * The restart intensity limit (OTP's MaxR/MaxT): at most `maxRestarts` restarts within any `withinMs`
 * sliding window. A child that needs more than that is not flaky but broken, and restarting it again
 * only burns CPU and floods logs; the supervisor marks it `down` instead.
 */

export interface RestartIntensityLimit {
  /** Restarts allowed within the window; 0 means a failed child is never restarted. */
  maxRestarts: number;
  /** The window, in ms. */
  withinMs: number;
}

export type Clock = () => number;

export type RestartVerdict =
  | { allowed: true; restartsInWindow: number }
  | {
      allowed: false;
      restartsInWindow: number;
      /** Why the child goes down, for the `down` event: "restarted 5 times within 60000 ms (limit: 5)". */
      reason: string;
    };

export class RestartIntensity {
  readonly limit: RestartIntensityLimit;
  readonly #now: Clock;
  /** Times of the restarts still inside the window, oldest first. */
  #restarts: number[] = [];

  constructor(limit: RestartIntensityLimit, now: Clock = Date.now) {
    if (!(Number.isInteger(limit.maxRestarts) && limit.maxRestarts >= 0)) {
      throw new RangeError(`maxRestarts must be an integer >= 0, got ${limit.maxRestarts}`);
    }
    if (!(Number.isFinite(limit.withinMs) && limit.withinMs > 0)) {
      throw new RangeError(`withinMs must be a finite number > 0, got ${limit.withinMs}`);
    }
    this.limit = limit;
    this.#now = now;
  }

  /** Restarts inside the window ending now. */
  get count(): number {
    this.#prune(this.#now());
    return this.#restarts.length;
  }

  /**
   * Asks for one restart now. When allowed it is recorded; when it would cross the limit it is not
   * (it does not happen), and the verdict carries the reason.
   */
  tryRestart(): RestartVerdict {
    const now = this.#now();
    this.#prune(now);
    const { maxRestarts, withinMs } = this.limit;
    if (this.#restarts.length >= maxRestarts) {
      const times = this.#restarts.length === 1 ? "once" : `${this.#restarts.length} times`;
      const reason =
        maxRestarts === 0
          ? "restarts are disabled (restart.maxRestarts is 0)"
          : `restarted ${times} within ${withinMs} ms (limit: ${maxRestarts})`;
      return { allowed: false, restartsInWindow: this.#restarts.length, reason };
    }
    this.#restarts.push(now);
    return { allowed: true, restartsInWindow: this.#restarts.length };
  }

  /** Ms until a restart would be allowed again (0 if it is now); Infinity when restarts are disabled. */
  retryAfterMs(): number {
    const now = this.#now();
    this.#prune(now);
    if (this.limit.maxRestarts === 0) return Infinity;
    if (this.#restarts.length < this.limit.maxRestarts) return 0;
    // The window must slide past enough old restarts to make room for one more.
    const freeing = this.#restarts[this.#restarts.length - this.limit.maxRestarts];
    return freeing + this.limit.withinMs - now;
  }

  /** Forgets every restart (after `board.restart(name)` or a cool-down). */
  reset(): void {
    this.#restarts = [];
  }

  /** A restart at time t counts while `now - t < withinMs`. */
  #prune(now: number): void {
    let drop = 0;
    while (drop < this.#restarts.length && now - this.#restarts[drop] >= this.limit.withinMs) drop++;
    if (drop > 0) this.#restarts.splice(0, drop);
  }
}
