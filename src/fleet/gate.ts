/**
 * One server's fleet gate: permits for calls in flight and calls per second across every process,
 * the fleet-wide pause a `Retry-After` asks for, and the shared breaker decision.
 *
 * Fairness: calls that cannot start queue in Redis, one ticket each, and free permits go to the oldest
 * ticket of the fleet (scripts.ts, PERMIT); the member handed one hears it on its grant channel and
 * starts the call with no round trip, so a process that releases a permit cannot take it back past
 * calls that asked before its own. Round trips: callers that arrive while a script is under way wait
 * for the next one, and one script gives back the permits finished calls released, queues the waiting
 * callers and hands free permits on (bench/fleet.ts counts them). Without a rate limit, while no other
 * member queues, a script also takes permits for an idle pool (idle.ts) renewed by one script per
 * HAND_OFF_MS: a busy process's calls take a permit with no round trip and the board's direct path.
 * Another member's first queued call (`wanted`), a pause or an opening is published and stops those
 * permits at once (gate-health.ts). Calls that cannot start wait (a fleet-wide limit is not an error,
 * nor a reason for a breaker). While Redis is away the gate enforces this process's share (local-share.ts).
 */
import { CircuitOpenError } from "../supervisor/circuit-breaker.js";
import type { FleetGate, FleetGateState, FleetLimits } from "../switchboard/fleet-seam.js";
import type { FleetBus } from "./bus.js";
import { GateHealth } from "./gate-health.js";
import { LEASE_MS, type FleetLink } from "./link.js";
import { IdlePermits } from "./idle.js";
import { burstEpochMs } from "../util/burst-clock.js";
import { LocalShare } from "./local-share.js";
import { cancelled, detach, enqueue, refuseDue, settle, type Waiting } from "./waiting.js";

/** How often a caller waiting for a permit asks again after a failed round trip. */
const POLL_MS = 5;
/**
 * A call queued for a permit is woken by the member that hands it one (the grant channel); it asks
 * again after this long anyway, in case that message was lost or the holder died (its permits come
 * back with its lease, and the next round trip hands them on).
 */
const QUEUED_POLL_MS = 100;
/**
 * A permit a finished call gives back goes to the next call of this process, without a round trip,
 * for up to this long after Redis granted or last renewed it; then one renewal asks whether the limit
 * still has room, and if not the permits go back to Redis, so other processes get their turn.
 */
const HAND_OFF_MS = 50;
const DEFAULT_QUORUM = 2;
/** What the permit script says stopped it granting more (scripts.ts). */
const PAUSED = 1;
const QUEUED = 3;
const PROBE = 4;
const OPEN = 5;

/** A call waiting for a permit; its deadline is checked between round trips, not by a timer per call. */
type Waiter = Waiting<() => void>;

export class RedisGate implements FleetGate {
  private readonly keys: string[];
  private readonly args: Array<string | number>;
  private readonly local: LocalShare;
  private waiters: Waiter[] = [];
  private releases = 0;
  private cycling = false;
  private wake: (() => void) | undefined;
  /** A kick came while no nap was under way: the next nap is skipped. */
  private rewake = false;
  private readonly health: GateHealth;
  /** Permits may pass from call to call locally (no rate: every call must take a rate token from Redis). */
  private readonly handOff: boolean;
  /** Permits released with nobody waiting, kept for the next caller until HAND_OFF_MS after their grant (idle.ts). */
  private readonly idle: IdlePermits;
  private renewing = false;
  /** When Redis last agreed that this process keeps its permits; and when it last refused. */
  private renewedAt = 0;
  private refusedAt = 0;
  /** When Redis granted the permits calls admitted by `tryAcquire` hold. */
  private readonly direct: number[] = [];
  /** Round trips the gate made (for bench/fleet.ts). */
  roundTrips = 0;
  /** Of the permits other members handed this process (a running total in Redis), how many it used. */
  private collected = 0;
  /** Calls of other members are queued for a permit: every permit this process frees goes back to the queue. */
  private contended = false;
  /** The grant channel prefix and the health channel, for the permit script. */
  private readonly channels: [string, string];

  constructor(
    private readonly link: FleetLink,
    private readonly bus: FleetBus,
    private readonly server: string,
    limits: FleetLimits,
    circuit: { failureThreshold: number; cooldownMs: number },
  ) {
    const key = (part: string) => link.key("server", server, part);
    this.keys = ["permits", "members", "rate", "pause", "open", "votes", "probe", "queue", "tickets", "handed"].map((part) =>
      part === "members" ? link.key("members") : key(part),
    );
    const rate = limits.ratePerSecond ?? 0;
    const quorum = limits.breakerQuorum ?? DEFAULT_QUORUM;
    this.args = [limits.maxConcurrency ?? -1, rate, limits.burst ?? Math.max(1, rate), LEASE_MS, quorum];
    const healthKeys = { permits: key("permits"), pause: key("pause"), open: key("open"), votes: key("votes"), probe: key("probe") };
    this.health = new GateHealth(
      link,
      bus,
      server,
      healthKeys,
      quorum,
      circuit,
      () => this.giveBack(this.idle.drop()),
      () => this.contend(),
    );
    this.channels = [key("grant") + ":", this.health.channel];
    bus.listen(this.channels[0] + link.member, (text) => this.handedOver(text));
    link.holding.add(this.keys[9]!); // the handed totals live as long as a member beats
    this.local = new LocalShare(server, limits, () => link.members);
    this.handOff = limits.ratePerSecond === undefined;
    this.idle = new IdlePermits(
      HAND_OFF_MS,
      (grantedAt, now, inUse) => this.fresh(grantedAt, now, inUse),
      (count) => this.giveBack(count),
    );
  }

  acquire(signal: AbortSignal | undefined, deadline = Infinity): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(cancelled(this.server, signal));
    // A permit this process holds and nobody uses (idle.ts): no round trip.
    const idle = this.link.healthy ? this.idle.take() : undefined;
    if (idle !== undefined) return Promise.resolve(this.permit(idle));
    if (!this.link.healthy) return this.link.isSettled ? this.acquireLocally(signal, deadline) : this.link.settled.then(() => this.acquire(signal, deadline));
    return new Promise((resolve, reject) => {
      enqueue(this.waiters, this.server, signal, deadline, resolve, reject);
      this.kick();
    });
  }

  state(): FleetGateState {
    const now = burstEpochMs();
    return { circuit: this.health.fleetCircuit(now), paused: this.health.pausedUntil > now, waiting: this.waiters.length + this.local.waiting };
  }

  tryAcquire(): boolean {
    if (!this.handOff || !this.link.healthy) return false;
    const grantedAt = this.idle.take();
    if (grantedAt === undefined) return false;
    this.direct.push(grantedAt);
    return true;
  }

  finished(error: unknown): void {
    this.report(error);
    // Permits are alike: the call that ends gives back the newest grant a direct call holds (a stack,
    // not a queue: shift() moves every element, on every call). A grant's age only matters until the
    // first renewal, which counts for all of them.
    const grantedAt = this.direct.pop();
    if (grantedAt !== undefined) this.give(grantedAt);
  }

  private acquireLocally(signal: AbortSignal | undefined, deadline: number): Promise<() => void> {
    return this.local.acquire(signal, deadline).then(() => once(() => this.local.release()));
  }

  /** Refuses the waiting calls whose deadline passed; returns how long until the next one's (Infinity: none). */
  private expire(): number {
    const now = Date.now();
    return refuseDue(this.waiters, this.server, now) - now;
  }

  private kick(): void {
    if (this.cycling) {
      // Woken while a round trip is under way (a grant handed after the script read): no nap after it.
      if (this.wake !== undefined) this.wake();
      else this.rewake = true;
      return;
    }
    this.cycling = true;
    void this.cycle().finally(() => {
      this.cycling = false;
      if (this.waiters.length > 0 || this.releases > 0) this.kick();
    });
  }

  private async cycle(): Promise<void> {
    await Promise.resolve(); // callers of this same tick join this round trip
    while (this.releases > 0 || this.waiters.length > 0) {
      const client = this.link.client;
      if (!this.link.healthy || client === undefined) return this.toLocal();
      const waitPause = this.health.pausedUntil - burstEpochMs();
      if (this.releases === 0 && waitPause > 0) {
        const untilDeadline = this.expire();
        if (this.waiters.length > 0) await this.nap(Math.min(waitPause, untilDeadline));
        continue;
      }
      const release = this.releases;
      this.releases = 0;
      const waiting = this.waiters.length;
      // Without a rate, as many again for the idle pool while nobody queues: the callers that come
      // next start without a round trip (a renewal gives them back once another member queues).
      const extra = this.handOff && !this.renewing && !this.contended ? waiting : 0;
      let reply: [number, number, number, number, number];
      try {
        this.roundTrips++;
        this.rewake = false;
        reply = await client.sbPermit(...this.keys, this.link.member, release, waiting, this.collected, ...this.args, extra, ...this.channels);
      } catch (error) {
        this.link.failed(error);
        if (!this.link.healthy) return this.toLocal();
        await this.nap(POLL_MS);
        continue;
      }
      const [granted, waitMs, why, others, handed] = reply;
      if (why === OPEN) {
        // The script took back the handed permits this process had not used.
        this.collected = Math.max(this.collected, handed);
        this.health.heardOpen(waitMs);
        const error = new CircuitOpenError(this.server, waitMs);
        for (const waiter of this.waiters.splice(0)) settle(waiter, undefined, error);
        continue;
      }
      this.contended = others > 0;
      if (this.contended) this.giveBack(this.idle.drop());
      if (why === PROBE) this.health.probing = true;
      // Permits handed before a pause wait it out uncollected: the first script after it serves them.
      if (why !== PAUSED) this.serve(granted + this.handedTotal(handed));
      // Nothing stopped it (callers came during the round trip), or permits to give back: again now.
      if (this.waiters.length === 0 || this.releases > 0 || why === 0) continue;
      if (why === PAUSED) this.health.pause(waitMs, false);
      const untilDeadline = this.expire();
      const napMs = why === QUEUED ? QUEUED_POLL_MS : waitMs > 0 ? Math.min(waitMs, 1_000) : POLL_MS;
      if (this.waiters.length > 0) await this.nap(Math.min(napMs, untilDeadline));
    }
  }

  /** The fleet handed this process permits up to a total of `total`: how many it has not used yet. */
  private handedTotal(total: number): number {
    const fresh = Math.max(0, total - this.collected);
    this.collected = Math.max(this.collected, total);
    return fresh;
  }

  /** `granted` permits came (a script's answer, or another member's grant message): the oldest waiting calls take them. */
  private serve(granted: number): void {
    if (granted <= 0) return;
    this.health.sawOpen(false);
    this.link.holding.add(this.keys[0]!);
    this.health.resume();
    const grantedAt = burstEpochMs();
    const served = this.waiters.splice(0, granted);
    for (const waiter of served) settle(waiter, this.permit(grantedAt));
    // More than the callers still waiting (some were served by a hand-off or gave up meanwhile).
    for (let spare = granted - served.length; spare > 0; spare--) this.give(grantedAt);
  }

  /** Another member handed this process permits for its queued calls (`grant <total>`): they start now, no round trip. */
  private handedOver(text: string): void {
    const total = Number(text.split(" ")[1]);
    if (this.link.healthy && total > this.collected && this.health.pausedUntil <= burstEpochMs()) this.serve(this.handedTotal(total));
  }

  private permit(grantedAt: number): () => void {
    return once(() => this.give(grantedAt));
  }

  private give(grantedAt: number): void {
    const state = this.fresh(grantedAt, burstEpochMs());
    if (state === "stale") {
      this.releases++;
      this.kick();
      return;
    }
    const waiter = state === "fresh" ? this.waiters.shift() : undefined;
    if (waiter !== undefined) settle(waiter, this.permit(grantedAt));
    else this.idle.keep(grantedAt); // fresh, or renewing: parked until the answer
  }

  /**
   * Whether a permit Redis granted at `grantedAt` may pass to another call of this process: `fresh`
   * for HAND_OFF_MS after it was granted or after the fleet last renewed this process's permits. Half
   * way, one renewal asks Redis whether keeping them takes nothing from anyone (the limit has room, no
   * pause, no open circuit); if it has not answered by twice that time the permits are `renewing`:
   * kept here, used by nobody, until it does. `stale`: it goes back to Redis. Never fresh while a
   * pause or an opening stands, or while this process could miss one being published.
   */
  private fresh(grantedAt: number, now: number, inUse = true): "fresh" | "renewing" | "stale" {
    // A process that could miss a pause published now keeps no permit from call to call; nor one
    // whose permits other members' calls are queued for (they go back, to the oldest of those).
    if (!this.handOff || this.contended || !this.bus.listening || !this.health.clear(now)) return "stale";
    const age = now - Math.max(grantedAt, this.renewedAt);
    if (age < HAND_OFF_MS) {
      // Half way: renew ahead, so a busy process rarely waits for the answer.
      if (inUse && age >= HAND_OFF_MS / 2 && !this.renewing) this.renew(now);
      return "fresh";
    }
    // The renewal asked at half time has not answered yet: keep going a while. It only asks whether
    // another member waits (a pause or an opening is heard at once, gate-health.ts), and a burst of
    // calls that never yields to I/O cannot read its answer until it stops.
    if (this.renewing && age < 2 * HAND_OFF_MS) return "fresh";
    // A permit nobody used for its whole time (the pool's sweep) goes back rather than being renewed.
    return this.renewing || (inUse && this.renew(now)) ? "renewing" : "stale";
  }

  private renew(now: number): boolean {
    const client = this.link.client;
    if (!this.link.healthy || client === undefined || now - this.refusedAt < HAND_OFF_MS) return false;
    this.renewing = true;
    this.roundTrips++;
    const [, , , pause, open, votes, , queue, tickets] = this.keys;
    client.sbRenewPermits(queue!, pause!, open!, votes!, tickets!, this.link.member, this.args[4]!).then(
      (kept) => this.renewed(kept === 1),
      (error: unknown) => {
        this.link.failed(error);
        this.renewed(false);
      },
    );
    return true;
  }

  private renewed(kept: boolean): void {
    this.renewing = false;
    if (kept) {
      // From the answer, not the question: the renewal only asks whether another member waits (a
      // pause or an opening is pushed, gate-health.ts), and a process whose calls stalled until the
      // answer could be read would otherwise find its permits already due again, and stall again.
      this.renewedAt = burstEpochMs();
      // The parked permits serve the calls that came meanwhile.
      for (let grantedAt = this.waiters.length > 0 ? this.idle.take() : undefined; grantedAt !== undefined;) {
        settle(this.waiters.shift()!, this.permit(grantedAt));
        grantedAt = this.waiters.length > 0 ? this.idle.take() : undefined;
      }
      return;
    }
    // Someone may need them: every permit goes back as it comes free (idle ones now).
    this.refusedAt = burstEpochMs();
    this.giveBack(this.idle.drop());
  }

  /** Another member started queueing for a permit: this process stops keeping idle ones until the queue is empty. */
  private contend(): void {
    this.contended = true;
    this.giveBack(this.idle.drop());
  }

  /** Idle permits whose time in this process is over (or all of them): back to Redis in the next round trip. */
  private giveBack(count: number): void {
    if (count === 0) return;
    this.releases += count;
    this.kick();
  }

  /** Redis went away: waiting callers take this process's share instead; held permits lapse with the heartbeat. */
  private toLocal(): void {
    this.releases = 0;
    this.idle.drop();
    for (const waiter of this.waiters.splice(0)) {
      detach(waiter);
      this.acquireLocally(waiter.signal, waiter.deadline).then(
        (release) => waiter.resolve(release),
        (error: Error) => waiter.reject(error),
      );
    }
  }

  private nap(ms: number): Promise<void> {
    if (this.rewake) {
      this.rewake = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  report(error: unknown): void {
    this.health.report(error);
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
