/**
 * The supervisor's per-child restart backoff over the shared formula (src/util/backoff.ts). The state
 * is plain data (how many delays were handed out since the child was last healthy) that the child
 * machine keeps in its context and replaces through `assign`.
 */
import { assertBackoffPolicy, backoffDelay, type BackoffPolicy, type RandomSource } from "../util/backoff.js";

export { assertBackoffPolicy, backoffBase, backoffDelay, type BackoffPolicy, type RandomSource } from "../util/backoff.js";

export interface BackoffState {
  /** Delays handed out since the last reset (0-based index of the next one). */
  readonly attempt: number;
}

/** A child that has not failed yet, or stayed up long enough to count as healthy again. */
export const FRESH_BACKOFF: BackoffState = Object.freeze({ attempt: 0 });

/** The delay before the next restart, and the state after it. */
export function nextBackoff(state: BackoffState, policy: BackoffPolicy, random: RandomSource): { delayMs: number; state: BackoffState } {
  // Whole milliseconds: the delay is shown in `restart` events and messages ("restarting in 93 ms").
  return { delayMs: Math.round(backoffDelay(state.attempt, policy, random)), state: { attempt: state.attempt + 1 } };
}

/**
 * The same backoff as a mutable counter, for code that keeps one outside a state machine (the child
 * machine keeps the plain `BackoffState` in its context instead).
 */
export class Backoff {
  readonly policy: BackoffPolicy;
  readonly #random: RandomSource;
  #state: BackoffState = FRESH_BACKOFF;

  constructor(policy: BackoffPolicy, random: RandomSource = Math.random) {
    assertBackoffPolicy(policy);
    this.policy = policy;
    this.#random = random;
  }

  /** How many delays have been handed out since the last reset. */
  get attempt(): number {
    return this.#state.attempt;
  }

  next(): number {
    const { delayMs, state } = nextBackoff(this.#state, this.policy, this.#random);
    this.#state = state;
    return delayMs;
  }

  reset(): void {
    this.#state = FRESH_BACKOFF;
  }
}
