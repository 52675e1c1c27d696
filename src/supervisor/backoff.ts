/**
 * The supervisor's per-child restart backoff over the shared formula (src/util/backoff.ts). The state
 * is plain data (how many delays were handed out since the child was last healthy) that the child
 * machine keeps in its context and replaces through `assign`.
 */
import { backoffDelay, type BackoffPolicy, type RandomSource } from "../util/backoff.js";

export { assertBackoffPolicy, backoffBase, backoffDelay, type BackoffPolicy, type RandomSource } from "../util/backoff.js";

export interface BackoffState {
  /** Delays handed out since the last reset (0-based index of the next one). */
  readonly attempt: number;
}

/** A child that has not failed yet, or stayed up long enough to count as healthy again. */
export const FRESH_BACKOFF: BackoffState = Object.freeze({ attempt: 0 });

/** The delay before the next restart, and the state after it. */
export function nextBackoff(state: BackoffState, policy: BackoffPolicy, random: RandomSource): { delayMs: number; state: BackoffState } {
  return { delayMs: backoffDelay(state.attempt, policy, random), state: { attempt: state.attempt + 1 } };
}
