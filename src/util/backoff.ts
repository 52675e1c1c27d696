/**
 * Exponential backoff with jitter: the one formula for every retry delay in the client (supervisor
 * restarts, stream resumes, re-listens).
 *
 * The delay before retry number `attempt` (0-based) is drawn from
 * `[base * (1 - jitter), base]`, where `base = min(maxMs, initialMs * factor ** attempt)`.
 * Jitter only ever shortens the delay, so `maxMs` is a hard ceiling; `jitter: 0` is deterministic and
 * `jitter: 1` is "full jitter" (anywhere from 0 to base), which spreads out many children that died
 * together (one server restart taking down several connections) so they do not restart in lock-step.
 */

export interface BackoffPolicy {
  /** The delay before the first restart (before jitter), in ms. */
  initialMs: number;
  /** The ceiling for any delay, in ms. */
  maxMs: number;
  /** Growth per attempt (>= 1). */
  factor: number;
  /** Fraction of the delay that is random, 0..1. */
  jitter: number;
}

/** A source of uniform random numbers in [0, 1), injectable so tests are deterministic. */
export type RandomSource = () => number;

/** Throws a `RangeError` naming the first value out of range; config validation catches these earlier. */
export function assertBackoffPolicy(policy: BackoffPolicy): void {
  const { initialMs, maxMs, factor, jitter } = policy;
  if (!(Number.isFinite(initialMs) && initialMs >= 0)) throw new RangeError(`backoff initialMs must be a finite number >= 0, got ${initialMs}`);
  if (!(Number.isFinite(maxMs) && maxMs >= initialMs)) throw new RangeError(`backoff maxMs must be a finite number >= initialMs (${initialMs}), got ${maxMs}`);
  if (!(Number.isFinite(factor) && factor >= 1)) throw new RangeError(`backoff factor must be a finite number >= 1, got ${factor}`);
  if (!(jitter >= 0 && jitter <= 1)) throw new RangeError(`backoff jitter must be between 0 and 1, got ${jitter}`);
}

/** The delay before jitter for a 0-based attempt: grows by `factor`, capped at `maxMs`. */
export function backoffBase(attempt: number, policy: BackoffPolicy): number {
  if (policy.initialMs === 0) return 0; // avoids 0 * Infinity = NaN for huge attempts
  const grown = policy.initialMs * Math.pow(policy.factor, Math.max(0, attempt));
  return Math.min(policy.maxMs, grown); // Infinity (overflow) is capped too
}

/** The delay, in ms, before restart number `attempt` (0-based). */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: RandomSource = Math.random): number {
  const base = backoffBase(attempt, policy);
  // Clamp the random draw: a faulty source must not push the delay out of its documented bounds.
  const r = Math.min(1, Math.max(0, random()));
  return base * (1 - policy.jitter * r);
}
