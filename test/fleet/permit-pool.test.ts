/**
 * The permits a process keeps from call to call (src/fleet/idle.ts, src/fleet/gate.ts) and what stops
 * them: a pause or a breaker opening another member publishes (src/fleet/gate-health.ts) stops this
 * member's pool as it is heard, not at its next round trip; a member that cannot hear (its subscriber
 * not subscribed yet) keeps no permit from call to call at all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TransportError } from "../../src/index.js";
import { redisFleet, type FleetEvent, type FleetGate, type RedisFleet } from "../../src/fleet/index.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { waitFor } from "../helpers/processes.js";

const circuit = { failureThreshold: 1, cooldownMs: 3_000 };
const limits = { maxConcurrency: 16, breakerQuorum: 1 };

/** Takes one permit through Redis and gives it back: it stays in the member's pool. */
async function warm(gate: FleetGate): Promise<void> {
  const release = await gate.acquire(undefined, Date.now() + 10_000);
  release();
}

/** Waits until the member's pool serves a call with no round trip (its subscriber is listening). */
async function pooled(gate: FleetGate): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 10))) {
    await warm(gate);
    if (gate.tryAcquire()) return gate.finished(undefined);
  }
  throw new Error("the pool never served a call within 10 s");
}

describe.skipIf(!redisAvailable)("the permit pool (real Redis)", () => {
  let redis: TestRedis;
  const fleets: RedisFleet[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const fleet of fleets) await fleet.close();
    await redis?.stop();
  });

  async function twoMembers(prefix: string): Promise<{ a: FleetGate; b: FleetGate; bEvents: FleetEvent[] }> {
    const fleetA = redisFleet({ url: redis.url }, prefix);
    const fleetB = redisFleet({ url: redis.url }, prefix);
    fleets.push(fleetA, fleetB);
    const bEvents: FleetEvent[] = [];
    fleetB.onEvent((event) => bEvents.push(event));
    await Promise.all([fleetA.ready(), fleetB.ready()]);
    return { a: fleetA.gate("api", limits, circuit)!, b: fleetB.gate("api", limits, circuit)!, bEvents };
  }

  it("a call takes a permit the process holds with no round trip; it gives it back for the next", async () => {
    const { a } = await twoMembers(`pool-${Date.now()}`);
    await pooled(a);
    const roundTrips = () => (a as unknown as { roundTrips: number }).roundTrips;
    const before = roundTrips();
    let served = 0;
    while (served < 100 && a.tryAcquire()) {
      a.finished(undefined);
      served++;
    }
    // The loop takes microseconds; only a machine that stops this process for 100 ms in it could make
    // the pool wait for its renewal, and that is not what is tested here.
    if (served === 100)
      expect(roundTrips() - before).toBeLessThanOrEqual(1); // at most the half-time renewal
    else expect(served).toBeGreaterThan(0);
  });

  it("a 429 one member sees stops the other member's pool as soon as it hears it", async () => {
    const { a, b, bEvents } = await twoMembers(`pool-pause-${Date.now()}`);
    await pooled(b);
    a.report(new TransportError("slow down", { status: 429, retryAfterMs: 2_000 }));
    await waitFor(() => bEvents.some((e) => e.type === "paused"), 5_000);
    // Well within the pool's own renewal time (50 ms): the news, not a renewal, stopped it.
    expect(b.tryAcquire()).toBe(false);
    expect(bEvents.find((e) => e.type === "paused")).toMatchObject({ server: "api", retryAfterMs: 2_000 });
  });

  it("a breaker another member opens stops this member's pool as soon as it hears it", async () => {
    const { a, b, bEvents } = await twoMembers(`pool-open-${Date.now()}`);
    await pooled(b);
    // Quorum 1, threshold 1: one failure at A opens the circuit for the fleet.
    a.report(new TransportError("connection refused", {}));
    await waitFor(() => bEvents.some((e) => e.type === "breaker"), 5_000);
    expect(b.tryAcquire()).toBe(false);
    expect(bEvents.find((e) => e.type === "breaker")).toMatchObject({ server: "api", state: "open" });
  });

  it("a member that joins while a server is paused hears of it from the stored key", async () => {
    const prefix = `pool-late-${Date.now()}`;
    const { a } = await twoMembers(prefix);
    await warm(a);
    a.report(new TransportError("slow down", { status: 429, retryAfterMs: 3_000 }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const late = redisFleet({ url: redis.url }, prefix);
    fleets.push(late);
    const events: FleetEvent[] = [];
    late.onEvent((event) => events.push(event));
    late.gate("api", limits, circuit);
    await waitFor(() => events.some((e) => e.type === "paused"), 5_000);
  });
});

describe.skipIf(redisAvailable)("the permit pool", () => {
  it.skip(INSTALL_REDIS, () => {});
});
