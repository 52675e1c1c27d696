/**
 * What `board.start()` waits for: every server that was starting is up, down or stopped, or has failed
 * a start (it then restarts in the background), or its start timeout has passed. A server that failed
 * is not waited for through its backoff and next attempts: one hung or broken server must not hold a
 * command line that only wants to report it. One map and one
 * timer for the whole board, fed by the supervisor's events, rather than a waiter with its own timer
 * and promise per server (10,000 of them at a time, for a board that size).
 */
import { MAX_TIMER_MS } from "../util/timers.js";
import type { ServerRuntime } from "./server-runtime.js";

export class StartWait {
  /** Servers not settled yet, with their deadlines (performance.now() ms). */
  private readonly waiting = new Map<ServerRuntime, number>();
  private timer: NodeJS.Timeout | undefined;
  private finish!: () => void;
  readonly done: Promise<void>;

  constructor(runtimes: Iterable<ServerRuntime>, timeoutOf: (runtime: ServerRuntime) => number) {
    this.done = new Promise<void>((resolve) => {
      this.finish = resolve;
    });
    const now = performance.now();
    for (const runtime of runtimes) if (!settled(runtime)) this.waiting.set(runtime, now + timeoutOf(runtime));
    this.next(now);
  }

  /** A server's state changed: once it is up, down, stopped or restarting (a start failed), it is no longer waited for. */
  update(runtime: ServerRuntime): void {
    if (runtime.state === "starting" || !this.waiting.delete(runtime)) return;
    if (this.waiting.size === 0) this.end();
  }

  /** Arms the timer for the earliest deadline, or ends the wait when nothing is left. */
  private next(now: number): void {
    let earliest = Infinity;
    for (const deadline of this.waiting.values()) if (deadline < earliest) earliest = deadline;
    if (earliest === Infinity) {
      this.end();
      return;
    }
    // Capped: past MAX_TIMER_MS setTimeout fires at once; firing early only re-arms.
    this.timer = setTimeout(() => this.expire(), Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(earliest - now))));
  }

  private expire(): void {
    this.timer = undefined;
    const now = performance.now();
    // A timer may fire up to a millisecond early.
    for (const [runtime, deadline] of this.waiting) if (deadline <= now + 1) this.waiting.delete(runtime);
    this.next(now);
  }

  private end(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.clear();
    this.finish();
  }
}

function settled(runtime: ServerRuntime): boolean {
  return runtime.state !== "starting" && runtime.state !== "restarting";
}
