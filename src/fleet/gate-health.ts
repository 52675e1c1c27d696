/**
 * What one server's gate knows of the server's health across the fleet: a pause a `Retry-After` asked
 * for, the shared breaker (each process votes when it sees failures; `breakerQuorum` votes open it for
 * all; one process probes half-open), and the news of both from the other members.
 *
 * A process holds idle permits (idle.ts) that its calls use without asking Redis, so a pause or an
 * opening decided elsewhere must reach it at once, not at its next round trip: both are published on
 * the server's channel (bus.ts) as they are stored, and a member that hears one stops using its
 * permits. After a reconnect the stored keys say what was missed.
 */
import { TransportError } from "../jsonrpc/errors.js";
import { breakerOutcomeOf } from "../supervisor/circuit-breaker.js";
import type { FleetBus } from "./bus.js";
import { LEASE_MS, type FleetLink } from "./link.js";
import { burstEpochMs } from "../util/burst-clock.js";

/** The keys a gate's scripts use, by name (gate.ts builds them). */
export interface GateKeys {
  permits: string;
  pause: string;
  open: string;
  votes: string;
  probe: string;
}

export class GateHealth {
  /** Until when (ms since the epoch) no call may start: a pause heard or seen. */
  pausedUntil = 0;
  /** Until when another member said the circuit is open (calls ask Redis, which refuses them). */
  openHeardUntil = 0;
  /** This process holds the fleet's half-open probe. */
  probing = false;
  private paused = false;
  private failures = 0;
  private voted = false;
  private open = false;
  /** The server's health channel: pauses, openings, and members that start queueing for a permit. */
  readonly channel: string;

  constructor(
    private readonly link: FleetLink,
    bus: FleetBus,
    private readonly server: string,
    private readonly keys: GateKeys,
    private readonly quorum: number,
    private readonly circuit: { failureThreshold: number; cooldownMs: number },
    /** The process must stop using the permits it holds (a pause or an opening). */
    private readonly stop: () => void,
    /** Another member's calls queue for a permit: idle permits go back (gate.ts). */
    private readonly wanted: () => void,
  ) {
    this.channel = link.key("server", server, "health");
    bus.listen(
      this.channel,
      (text) => this.heard(text),
      () => void this.resync(),
    );
  }

  /** Whether permits this process holds may pass from call to call now (nothing stops the server). */
  clear(now: number): boolean {
    return !this.probing && this.pausedUntil <= now && this.openHeardUntil <= now;
  }

  report(error: unknown): void {
    if (error === undefined) {
      if (this.failures === 0 && !this.probing && !this.voted) return;
      this.failures = 0;
      if (this.probing || this.voted) this.healed();
      return;
    }
    const retryAfterMs = error instanceof TransportError && (error.status === 429 || error.status === 503) ? error.retryAfterMs : undefined;
    if (retryAfterMs !== undefined && retryAfterMs > 0) this.pause(retryAfterMs, true);
    const outcome = breakerOutcomeOf(error);
    if (outcome === "success") return this.report(undefined);
    if (outcome !== "failure") return;
    this.failures++;
    if (this.probing || this.failures >= this.circuit.failureThreshold) this.vote();
  }

  /** No call starts for `ms`; `tellFleet`: this process saw the 429, so it stores and publishes the pause. */
  pause(ms: number, tellFleet: boolean): void {
    this.pausedUntil = Math.max(this.pausedUntil, burstEpochMs() + ms);
    this.stop();
    if (tellFleet && this.link.healthy) {
      this.link.client?.sbPause(this.keys.pause, this.link.member, Math.ceil(ms), this.channel).catch((e: unknown) => this.link.failed(e));
    }
    if (this.paused) return;
    this.paused = true;
    this.link.emit("event", { type: "paused", server: this.server, retryAfterMs: ms });
  }

  /** Redis granted permits again. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.link.emit("event", { type: "resumed", server: this.server });
  }

  /** What the permit script said of the circuit: open fleet-wide (true) or granting (false). */
  sawOpen(open: boolean, reason = open ? "opened by the fleet" : "calls succeed again"): void {
    if (!open) this.openHeardUntil = 0;
    if (open === this.open) return;
    this.open = open;
    this.link.emit("event", { type: "breaker", server: this.server, state: open ? "open" : "closed", reason });
  }

  /** A message on the server's channel: `pause <ms> <member>`, `open <ms> <member>` or `wanted 1 <member>`. */
  private heard(text: string): void {
    const [type, ms, member] = text.split(" ");
    const forMs = Number(ms);
    if (member === this.link.member || !(forMs > 0)) return;
    if (type === "wanted") this.wanted();
    else if (type === "pause") this.pause(forMs, false);
    else if (type === "open") this.heardOpen(forMs);
  }

  /** The fleet's breaker as this member knows it: open until the cool-down it heard of, then half-open until a call gets through. */
  fleetCircuit(now: number): "open" | "half-open" | undefined {
    if (this.probing) return "half-open";
    if (!this.open) return undefined;
    return this.openHeardUntil > now ? "open" : "half-open";
  }

  /** The circuit is open fleet-wide for another `ms` (published, or the permit script said so). */
  heardOpen(ms: number): void {
    this.openHeardUntil = Math.max(this.openHeardUntil, burstEpochMs() + ms);
    this.stop();
    this.sawOpen(true);
  }

  /** After a (re)subscribe: a pause or an opening published while this member was not listening. */
  private async resync(): Promise<void> {
    const client = this.link.client;
    if (client === undefined || !this.link.healthy) return;
    try {
      const [pause, open] = await Promise.all([client.pttl(this.keys.pause), client.pttl(this.keys.open)]);
      if (pause > 0) this.pause(pause, false);
      if (open > 0) this.heardOpen(open);
    } catch (error) {
      this.link.failed(error);
    }
  }

  private vote(): void {
    const probing = this.probing;
    this.probing = false;
    this.voted = true;
    this.failures = 0;
    if (!this.link.healthy) return;
    const window = Math.max(this.circuit.cooldownMs, LEASE_MS) * 2;
    this.link.client
      ?.sbVote(this.keys.votes, this.keys.open, this.keys.probe, this.link.member, this.quorum, this.circuit.cooldownMs, window, this.channel)
      .then((opened) => {
        if (opened === 1) this.sawOpen(true, probing ? "the fleet's probe failed" : `${this.quorum} processes see it failing`);
      })
      .catch((e: unknown) => this.link.failed(e));
  }

  private healed(): void {
    this.probing = false;
    this.voted = false;
    if (!this.link.healthy) return;
    this.link.client
      ?.sbHealed(this.keys.votes, this.keys.probe)
      .then((removed) => {
        if (removed > 0) this.sawOpen(false);
      })
      .catch((e: unknown) => this.link.failed(e));
  }
}
