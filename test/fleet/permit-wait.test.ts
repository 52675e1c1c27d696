/**
 * A call waiting for a fleet permit or a rate slot honours its abort signal and its timeout, on both
 * paths: the Redis gate (another member holds every permit) and the local share a process falls back
 * to while Redis is away (degraded). A refused waiter leaves nothing behind: the next call gets the
 * permit, and the server never sees the refused calls.
 */
import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RequestCancelledError, RequestTimeoutError, Switchboard, TransportError } from "../../src/index.js";
import { redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { startCountingServer } from "../fixtures/fleet/counting-server.js";
import { waitFor } from "../helpers/processes.js";

const circuit = { failureThreshold: 5, cooldownMs: 1000 };

/** A Redis URL where nothing listens: the fleet is degraded from the start. */
async function deadUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `redis://127.0.0.1:${port}`;
}

/** Checks a gate whose one permit is held elsewhere: abort and deadline refuse the waiters; the permit still comes. */
async function refusesWaiters(fleet: RedisFleet, limits: { maxConcurrency?: number; ratePerSecond?: number; burst?: number }, freeUp: () => void) {
  const gate = fleet.gate("api", limits, circuit)!;
  const aborter = new AbortController();
  const aborted = gate.acquire(aborter.signal);
  const timedOut = gate.acquire(undefined, Date.now() + 300);
  const startedAt = Date.now();
  setTimeout(() => aborter.abort(new Error("caller gave up")), 100);
  await expect(aborted).rejects.toBeInstanceOf(RequestCancelledError);
  await expect(aborted).rejects.toThrow(/cancelled while waiting for a fleet permit/);
  await expect(timedOut).rejects.toBeInstanceOf(RequestTimeoutError);
  await expect(timedOut).rejects.toThrow(/no fleet permit within the call's timeout/);
  const waited = Date.now() - startedAt;
  expect(waited).toBeGreaterThanOrEqual(250);
  expect(waited).toBeLessThan(5_000);
  // An already aborted signal is refused at once.
  await expect(gate.acquire(AbortSignal.abort())).rejects.toBeInstanceOf(RequestCancelledError);
  // The refused waiters took nothing: once the permit is free, the next caller gets it.
  const next = gate.acquire(undefined, Date.now() + 10_000);
  freeUp();
  (await next)();
}

describe("fleet permits while degraded (no Redis)", () => {
  const fleets: RedisFleet[] = [];
  afterEach(async () => {
    for (const fleet of fleets.splice(0)) await fleet.close();
  });

  it("a call waiting for the local share honours its abort signal and deadline", async () => {
    const fleet = redisFleet({ url: await deadUrl() }, "wait");
    fleets.push(fleet);
    await fleet.ready();
    expect(fleet.healthy).toBe(false);
    const release = await fleet.gate("api", { maxConcurrency: 1 }, circuit)!.acquire(undefined);
    await refusesWaiters(fleet, { maxConcurrency: 1 }, release);
  });

  it("a call waiting for a rate slot of the local share honours its deadline", async () => {
    const fleet = redisFleet({ url: await deadUrl() }, "rate");
    fleets.push(fleet);
    await fleet.ready();
    const gate = fleet.gate("api", { ratePerSecond: 1, burst: 1 }, circuit)!;
    (await gate.acquire(undefined))();
    await expect(gate.acquire(undefined, Date.now() + 100)).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it("through the board: a routed call past its timeout fails with a timeout and never reaches the server, nor opens the breaker", async () => {
    const server = await startCountingServer({ holdMs: 1500 });
    const fleet = redisFleet({ url: await deadUrl() }, "board");
    fleets.push(fleet);
    // One failure would open this breaker: waiting for a permit must not count as one.
    const board = new Switchboard({
      servers: { api: { url: server.url, fleet: { maxConcurrency: 1 }, circuit: { failureThreshold: 1, cooldownMs: 60_000 } } },
      fleet,
    });
    const circuits: string[] = [];
    board.on("circuit", (event) => circuits.push(event.to));
    try {
      await board.start();
      await fleet.ready();
      const first = board.callTool("api__work", {});
      await waitFor(() => server.inFlight === 1);
      await expect(board.callTool("api__work", {}, { timeoutMs: 200 })).rejects.toBeInstanceOf(RequestTimeoutError);
      await expect(board.callTool("api__work", {}, { timeoutMs: 200 })).rejects.toThrow(/fleet permit/);
      expect(circuits).toEqual([]);
      expect(board.status().api.circuit).toBe("closed");
      const aborter = new AbortController();
      const cancelled = board.callTool("api__work", {}, { signal: aborter.signal });
      setTimeout(() => aborter.abort(), 50);
      await expect(cancelled).rejects.toBeInstanceOf(RequestCancelledError);
      await first;
      expect(server.reached).toBe(1);
    } finally {
      await board.stop();
      await server.close();
    }
  });
});

describe.skipIf(!redisAvailable)("fleet permits on Redis", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("a call waiting for a permit another member holds honours its abort signal and deadline", async () => {
    const prefix = `wait-${Date.now()}`;
    const holder = redisFleet({ url: redis.url }, prefix);
    const waiter = redisFleet({ url: redis.url }, prefix);
    try {
      await holder.ready();
      await waiter.ready();
      expect(waiter.healthy).toBe(true);
      const release = await holder.gate("api", { maxConcurrency: 1 }, circuit)!.acquire(undefined);
      await refusesWaiters(waiter, { maxConcurrency: 1 }, release);
    } finally {
      await holder.close();
      await waiter.close();
    }
  });

  it("a call waiting out a fleet-wide pause honours its deadline", async () => {
    const prefix = `pause-${Date.now()}`;
    const fleet = redisFleet({ url: redis.url }, prefix);
    try {
      await fleet.ready();
      const gate = fleet.gate("api", { maxConcurrency: 4 }, circuit)!;
      gate.report(new TransportError("slow down", { status: 429, retryAfterMs: 5_000 }));
      const startedAt = Date.now();
      await expect(gate.acquire(undefined, Date.now() + 200)).rejects.toBeInstanceOf(RequestTimeoutError);
      expect(Date.now() - startedAt).toBeLessThan(4_000);
    } finally {
      await fleet.close();
    }
  });
});

describe.skipIf(redisAvailable)("fleet permits on Redis", () => {
  it.skip(INSTALL_REDIS, () => {});
});

describe.skipIf(!redisAvailable)("a dead member's entries", () => {
  it("go from the permits and handed hashes once it has left the member list (a minute without a beat)", async () => {
    const redis = await startRedis();
    const fleet = redisFleet({ url: redis.url }, "gone");
    const { Redis } = await import("ioredis");
    const raw = new Redis(redis.url);
    try {
      await fleet.ready();
      // A call through the gate: its permits and handed hashes now ride on this member's heartbeat.
      (await fleet.gate("api", { maxConcurrency: 1 }, circuit)!.acquire(undefined))();
      const handed = "gone:server:api:handed";
      const permits = "gone:server:api:permits";
      // A member that died over a minute ago, and one that died a moment ago (still listed, shown gone).
      const [seconds] = await raw.time();
      const nowMs = Number(seconds) * 1000;
      await raw.zadd("gone:members", nowMs - 61_000, "old:1:dead", nowMs - 5_000, "new:2:dead");
      await raw.hset(handed, "old:1:dead", 3, "new:2:dead", 2);
      await raw.hset(permits, "old:1:dead", 1);
      for (let tries = 0; tries < 40 && (await raw.hexists(handed, "old:1:dead")) === 1; tries++) await new Promise((r) => setTimeout(r, 100));
      expect(await raw.hexists(handed, "old:1:dead")).toBe(0);
      expect(await raw.hexists(permits, "old:1:dead")).toBe(0);
      expect(await raw.zscore("gone:members", "old:1:dead")).toBeNull();
      // The recently dead member stays listed, with its totals, until its minute is up.
      expect(await raw.hget(handed, "new:2:dead")).toBe("2");
      expect(await raw.zscore("gone:members", "new:2:dead")).not.toBeNull();
    } finally {
      raw.disconnect();
      await fleet.close();
      await redis.stop();
    }
  });
});
