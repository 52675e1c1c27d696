/**
 * What one process enforces of a server's fleet limits while Redis is away: its share, the limit
 * divided by the members it last saw alive (at least 1 call in flight, and a share of the rate), so a
 * fleet that loses Redis stays near its limits instead of multiplying them.
 *
 * A call waiting for its share still honours its abort signal and its deadline (the call's timeout):
 * one timer for the share, armed for the earliest deadline, not one per call.
 */
import type { FleetLimits } from "../switchboard/fleet-seam.js";
import { cancelled, enqueue, refuseDue, settle, type Waiting } from "./waiting.js";

export class LocalShare {
  private running = 0;
  private tokens: number;
  private at = Date.now();
  private readonly queue: Waiting<void>[] = [];
  private timer: NodeJS.Timeout | undefined;
  private expiry: { timer: NodeJS.Timeout; at: number } | undefined;

  constructor(
    private readonly server: string,
    private readonly limits: FleetLimits,
    private readonly members: () => number,
  ) {
    this.tokens = this.burst();
  }

  private max(): number {
    const max = this.limits.maxConcurrency;
    return max === undefined ? Infinity : Math.max(1, Math.floor(max / this.members()));
  }

  private rate(): number {
    const rate = this.limits.ratePerSecond;
    return rate === undefined ? Infinity : rate / this.members();
  }

  private burst(): number {
    const rate = this.limits.ratePerSecond;
    if (rate === undefined) return Infinity;
    return Math.max(1, (this.limits.burst ?? rate) / this.members());
  }

  /** Calls waiting for this process's share. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves when this process's share lets one more call start; rejects when `signal` aborts or `deadline` passes first. */
  acquire(signal?: AbortSignal, deadline = Infinity): Promise<void> {
    if (signal?.aborted) return Promise.reject(cancelled(this.server, signal));
    if (this.queue.length === 0 && this.take()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      enqueue(this.queue, this.server, signal, deadline, resolve, reject);
      if (deadline !== Infinity) this.armExpiry(deadline);
      this.schedule(0);
    });
  }

  release(): void {
    this.running--;
    this.drain();
  }

  private take(): boolean {
    if (this.running >= this.max()) return false;
    const rate = this.rate();
    if (rate !== Infinity) {
      const now = Date.now();
      this.tokens = Math.min(this.burst(), this.tokens + ((now - this.at) * rate) / 1000);
      this.at = now;
      if (this.tokens < 1) return false;
      this.tokens--;
    }
    this.running++;
    return true;
  }

  private drain(): void {
    while (this.queue.length > 0 && this.take()) settle(this.queue.shift()!, undefined);
    if (this.queue.length === 0 && this.expiry !== undefined) {
      clearTimeout(this.expiry.timer);
      this.expiry = undefined;
    }
    if (this.queue.length > 0 && this.running < this.max()) this.schedule(Math.ceil(((1 - this.tokens) * 1000) / this.rate()));
  }

  private armExpiry(at: number): void {
    if (this.expiry !== undefined && this.expiry.at <= at) return;
    if (this.expiry !== undefined) clearTimeout(this.expiry.timer);
    const timer = setTimeout(() => this.expire(), Math.max(0, at - Date.now())).unref();
    this.expiry = { timer, at };
  }

  private expire(): void {
    this.expiry = undefined;
    const next = refuseDue(this.queue, this.server);
    if (next !== Infinity) this.armExpiry(next);
  }

  private schedule(ms: number): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.drain();
    }, ms);
  }
}
