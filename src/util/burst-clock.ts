/**
 * A clock for code on every call's path (the observer's tap, src/observe/observer.ts; the fleet's permit
 * pool, src/fleet/gate.ts): performance.now(), read at most once per burst. A clock read costs 100-150 ns
 * on a loaded virtual machine, more than all the rest of the tap, and calls start and end in bursts (a batch of
 * responses parsed in one turn, a loop firing 64 calls), so readings within two jobs of the microtask
 * queue share one, up to SHARED_READS of them. The price: a duration can be off by the time of one burst's
 * synchronous work (microseconds), and never by a wait for I/O or a timer, which always ends a burst.
 */

/** Readings one clock read may serve: bounds the error inside a long run of microtasks. */
const SHARED_READS = 16;

let reading = 0;
let left = 0;
const expire = (): void => {
  left = 0;
};
// A reaction on a settled promise, not queueMicrotask: Node wraps each queueMicrotask callback in an
// AsyncResource and a bound function, several times the cost of the clock read this saves.
const SETTLED = Promise.resolve();
// Two hops, not one: a call's end is read in a reaction whose value resolves the caller's promise, and the
// caller's next call starts in the job that queues, behind a one-hop expiry. With two, that start shares
// the end's reading: the tap's clock reads went from 2 to 1 a call, counted with a wrapped performance.now
// on bench/observe.ts's boards (stdio at concurrency 1; the in-process pair at 1 and 64). process.nextTick
// would expire at the end of the whole queue, but costs more per burst than the read it saves.
const expireAfterNextJob = (): void => {
  void SETTLED.then(expire);
};

/** performance.now(), as of the current burst. */
export function burstNow(): number {
  if (left > 0) {
    left--;
    return reading;
  }
  reading = performance.now();
  left = SHARED_READS - 1;
  void SETTLED.then(expireAfterNextJob);
  return reading;
}

const TIME_ORIGIN = performance.timeOrigin;

/**
 * Milliseconds since the epoch, as of the current burst: the same monotonic reading, so times taken
 * with it never step back when the system clock is set. Compare them with each other, not with Date.now().
 */
export function burstEpochMs(): number {
  return TIME_ORIGIN + burstNow();
}
