/** The supervisor's per-child attempt counter over the shared backoff formula (src/util/backoff.ts). */
import { assertBackoffPolicy, backoffDelay, type BackoffPolicy, type RandomSource } from "../util/backoff.js";

export { assertBackoffPolicy, backoffBase, backoffDelay, type BackoffPolicy, type RandomSource } from "../util/backoff.js";

/**
 * Counts attempts for one child: `next()` gives the delay for the next restart and advances;
 * `reset()` after the child has run long enough to be considered healthy again.
 */
export class Backoff {
  readonly policy: BackoffPolicy;
  #attempt = 0;
  readonly #random: RandomSource;

  constructor(policy: BackoffPolicy, random: RandomSource = Math.random) {
    assertBackoffPolicy(policy);
    this.policy = policy;
    this.#random = random;
  }

  /** How many delays have been handed out since the last reset. */
  get attempt(): number {
    return this.#attempt;
  }

  next(): number {
    return backoffDelay(this.#attempt++, this.policy, this.#random);
  }

  reset(): void {
    this.#attempt = 0;
  }
}
