/**
 * Permits a process holds from the fleet and nobody uses right now. A call that finishes while no
 * other call of the process waits keeps its permit here instead of giving it back to Redis at once;
 * the next call takes it without a round trip. Whether a permit may be used here is the gate's
 * decision (`fresh`: within its time since Redis granted or renewed it; `renewing`: parked until Redis
 * answers; `stale`: it goes back in the gate's next round trip). One timer for the pool, not per permit.
 */
import { burstEpochMs } from "../util/burst-clock.js";

export class IdlePermits {
  /** When Redis granted each idle permit (ms since the epoch). */
  private readonly grants: number[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly checkEveryMs: number,
    /** Whether a permit granted at that time may be used in this process now, must wait (a renewal runs), or goes back. */
    private readonly fresh: (grantedAt: number, now: number, inUse: boolean) => "fresh" | "renewing" | "stale",
    /** Takes back permits whose time is over: the gate gives them back to Redis. */
    private readonly lapsed: (count: number) => void,
  ) {}

  keep(grantedAt: number): void {
    this.grants.push(grantedAt);
    this.timer ??= setTimeout(() => this.sweep(), this.checkEveryMs).unref();
  }

  /** The grant time of an idle permit still in its time, or undefined; idle permits out of time go back. */
  take(): number | undefined {
    const grantedAt = this.grants.pop();
    if (grantedAt === undefined) return undefined;
    const state = this.fresh(grantedAt, burstEpochMs(), true);
    if (state === "fresh") return grantedAt;
    this.grants.push(grantedAt);
    if (state === "stale") this.sweep();
    return undefined;
  }

  /** Empties the pool; returns how many permits it held. */
  drop(): number {
    const count = this.grants.length;
    this.grants.length = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    return count;
  }

  private sweep(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const now = burstEpochMs();
    let kept = 0;
    for (const grantedAt of this.grants) if (this.fresh(grantedAt, now, false) !== "stale") this.grants[kept++] = grantedAt;
    const lapsed = this.grants.length - kept;
    this.grants.length = kept;
    if (kept > 0) this.timer = setTimeout(() => this.sweep(), this.checkEveryMs).unref();
    if (lapsed > 0) this.lapsed(lapsed);
  }
}
