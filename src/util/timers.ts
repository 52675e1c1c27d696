/**
 * Timers fed with durations from configuration or from a server. Node's setTimeout fires after 1 ms
 * for a delay that is not finite or above 2^31-1 ms, so such a value (`requestTimeoutMs: Infinity`, a
 * server's huge `pollIntervalMs`) would turn a wait into a hot loop; here it means "no timer".
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** setTimeout, or undefined (no timer at all) when `ms` is not a delay setTimeout can honour. */
export function timerFor(fn: () => void, ms: number): NodeJS.Timeout | undefined {
  if (!(ms <= MAX_TIMER_MS)) return undefined; // NaN, Infinity, > 24.8 days: never
  return setTimeout(fn, Math.max(0, ms));
}

/** `value` within [min, max]; `fallback` when it is not a finite number. */
export function clamp(value: number, min: number, max: number, fallback: number): number {
  if (!Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, value));
}

/** Waits `ms`, or less if `signal` aborts first (it resolves either way: callers check the signal). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = timerFor(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
