/**
 * A circuit breaker per server, so a server that keeps failing is skipped (calls go to a fallback or
 * fail fast) instead of being hammered, and is probed again after a cool-down.
 *
 *   closed --(failureThreshold consecutive failures)--> open
 *   open --(cooldownMs elapsed; checked on the next allow()/state read)--> half-open
 *   half-open: allow() lets exactly one probe through; its success closes, its failure re-opens.
 *
 * There are no timers: the open -> half-open step is computed from the injected clock when someone
 * looks, so a breaker never keeps the process alive and needs no disposal.
 *
 * What counts is decided by `breakerOutcomeOf(error)`: only failures that say something about the
 * server's health (transport failures, timeouts) count; an answer from the server, even an error answer,
 * proves it is alive; a caller's cancellation, our own queue's overload or a wait that timed out before
 * the request was sent says nothing about it.
 */
import { EncodingError, McpError, OverloadError, RequestCancelledError, RequestTimeoutError } from "../jsonrpc/errors.js";
import type { Clock } from "./restart-intensity.js";

export type CircuitState = "closed" | "open" | "half-open";

export interface CircuitPolicy {
  /** Consecutive failures that open the circuit (>= 1). */
  failureThreshold: number;
  /** How long the circuit stays open before a probe is let through, in ms. */
  cooldownMs: number;
}

export interface CircuitStateChange {
  from: CircuitState;
  to: CircuitState;
  /** Human-readable: "5 consecutive failures", "cool-down of 30000 ms elapsed", "probe succeeded", ... */
  reason: string;
}

export interface CircuitBreakerOptions extends CircuitPolicy {
  now?: Clock;
  onStateChange?: (change: CircuitStateChange) => void;
}

/** How one finished call affects the breaker. */
export type BreakerOutcome = "success" | "failure" | "neutral";

/**
 * Classifies a call's error for the breaker:
 * - cancelled by the caller, or refused by our own concurrency limit: `neutral` (nothing learned);
 * - any other retryable `McpError` (transport lost, process exited, timeout): `failure`;
 * - a non-retryable `McpError` (JSON-RPC error answer, tool error): `success`, the server answered;
 * - anything else (an unwrapped error from below): `failure`, to be safe.
 */
export function breakerOutcomeOf(error: unknown): BreakerOutcome {
  // CircuitOpenError: a fleet's open circuit refused the call here; it never reached the server.
  // EncodingError: the caller's params could not be written; nothing was sent.
  if (error instanceof RequestCancelledError || error instanceof OverloadError || error instanceof CircuitOpenError || error instanceof EncodingError)
    return "neutral";
  // A timeout before the request was sent (a wait for a fleet permit, a rate slot or a pause): waiting
  // is not failing, and says nothing about the server.
  if (error instanceof RequestTimeoutError && !error.delivered) return "neutral";
  if (error instanceof McpError) return error.retryable ? "failure" : "success";
  return "failure";
}

export class CircuitBreaker {
  readonly policy: CircuitPolicy;
  readonly #now: Clock;
  readonly #onStateChange: ((change: CircuitStateChange) => void) | undefined;
  #state: CircuitState = "closed";
  #consecutiveFailures = 0;
  #openedAt = 0;
  #probeInFlight = false;

  constructor(options: CircuitBreakerOptions) {
    if (!(Number.isInteger(options.failureThreshold) && options.failureThreshold >= 1)) {
      throw new RangeError(`failureThreshold must be an integer >= 1, got ${options.failureThreshold}`);
    }
    if (!(Number.isFinite(options.cooldownMs) && options.cooldownMs >= 0)) {
      throw new RangeError(`cooldownMs must be a finite number >= 0, got ${options.cooldownMs}`);
    }
    this.policy = { failureThreshold: options.failureThreshold, cooldownMs: options.cooldownMs };
    this.#now = options.now ?? Date.now;
    this.#onStateChange = options.onStateChange;
  }

  /** The current state; reading it may move open -> half-open when the cool-down is over. */
  get state(): CircuitState {
    this.#refresh();
    return this.#state;
  }

  /** Closed: every call may go. Reading it never moves the state (only an open circuit changes with time). */
  get closed(): boolean {
    return this.#state === "closed";
  }

  get consecutiveFailures(): number {
    return this.#consecutiveFailures;
  }

  /** Ms until the open circuit lets a probe through; 0 when not open. */
  retryAfterMs(): number {
    this.#refresh();
    if (this.#state !== "open") return 0;
    return Math.max(0, this.#openedAt + this.policy.cooldownMs - this.#now());
  }

  /**
   * May a call go to this server now? Closed: yes. Open: no. Half-open: yes for exactly one probe,
   * then no until that probe's outcome is reported.
   */
  allow(): boolean {
    this.#refresh();
    if (this.#state === "closed") return true;
    if (this.#state === "open") return false;
    if (this.#probeInFlight) return false;
    this.#probeInFlight = true;
    return true;
  }

  onSuccess(): void {
    this.#refresh();
    this.#consecutiveFailures = 0;
    if (this.#state === "half-open") this.#transition("closed", "probe succeeded");
    // While open, a late success from a call started before the circuit opened is ignored: the
    // cool-down still runs its course and a probe decides.
  }

  /**
   * Reports a failed call; `breakerOutcomeOf(error)` decides whether it counts (no error given: it
   * counts).
   */
  onFailure(error?: unknown): void {
    const outcome = breakerOutcomeOf(error);
    if (outcome === "success") return this.onSuccess();
    if (outcome === "neutral") return this.#onNeutral();
    this.#refresh();
    if (this.#state === "open") return; // stragglers from before the circuit opened
    this.#consecutiveFailures++;
    if (this.#state === "half-open") {
      this.#open("probe failed");
    } else if (this.#consecutiveFailures >= this.policy.failureThreshold) {
      const n = this.#consecutiveFailures;
      this.#open(`${n} consecutive failure${n === 1 ? "" : "s"}`);
    }
  }

  /** Back to closed with a clean count (after an operator's `board.restart(name)`, say). */
  reset(): void {
    this.#consecutiveFailures = 0;
    this.#probeInFlight = false;
    if (this.#state !== "closed") this.#transition("closed", "reset");
  }

  /** A cancelled probe taught us nothing: free the probe slot so the next call can probe. */
  #onNeutral(): void {
    this.#refresh();
    if (this.#state === "half-open") this.#probeInFlight = false;
  }

  #open(reason: string): void {
    this.#openedAt = this.#now();
    this.#probeInFlight = false;
    this.#transition("open", reason);
  }

  #refresh(): void {
    if (this.#state === "open" && this.#now() - this.#openedAt >= this.policy.cooldownMs) {
      this.#probeInFlight = false;
      this.#transition("half-open", `cool-down of ${this.policy.cooldownMs} ms elapsed`);
    }
  }

  #transition(to: CircuitState, reason: string): void {
    const from = this.#state;
    this.#state = to;
    this.#onStateChange?.({ from, to, reason });
  }
}

/** A call was not sent because the server's circuit is open. Never delivered, so safe to try elsewhere. */
export class CircuitOpenError extends McpError {
  readonly retryAfterMs: number;
  constructor(server: string, retryAfterMs: number) {
    super(`server "${server}": circuit open after repeated failures; next probe in ${Math.ceil(retryAfterMs)} ms`, {
      retryable: true,
      delivered: false,
      server,
    });
    this.retryAfterMs = retryAfterMs;
  }
}
