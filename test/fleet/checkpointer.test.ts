/**
 * `fleet.checkpointer()` on a real Redis: the shared Checkpointer contract (test/durable/checkpointer-contract.ts),
 * then what only Redis promises: the keys it uses under the prefix (no TTL on the checkpoint, the
 * lease's TTL is the one asked for), two fleets with different prefixes never see each other's runs,
 * a corrupted or foreign value is a typed error naming the run, and an unreachable Redis is a
 * CheckpointError with reason "io" naming the URL with its password masked, at once.
 */
import { spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisCheckpointer } from "../../src/fleet/checkpointer.js";
import { redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { FleetLink } from "../../src/fleet/link.js";
import { CheckpointError, ConfigError } from "../../src/index.js";
import { checkpointerContract, stateOf } from "../durable/checkpointer-contract.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";

let redis: TestRedis;
let prefixes = 0;
const nextPrefix = () => `cp-${process.pid}-${++prefixes}`;

describe.skipIf(!redisAvailable)("fleet.checkpointer() (real Redis)", () => {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  checkpointerContract("fleet.checkpointer()", async () => {
    const fleet = redisFleet({ url: redis.url }, nextPrefix());
    return { checkpointer: fleet.checkpointer(), cleanup: () => fleet.close() };
  });

  const withFleet = async (test: (fleet: RedisFleet, client: Redis) => Promise<void>) => {
    const fleet = redisFleet({ url: redis.url }, nextPrefix());
    const client = new Redis(redis.url);
    try {
      await test(fleet, client);
    } finally {
      await fleet.close();
      client.disconnect();
    }
  };

  it("keeps the run as a hash without TTL, indexes it in <prefix>:runs, and the lease expires after the ttl asked for", () =>
    withFleet(async (fleet, client) => {
      const checkpointer = fleet.checkpointer();
      expect(fleet.checkpointer()).toBe(checkpointer);
      await checkpointer.save("k1", stateOf("k1"), 0);
      await checkpointer.lease("k1", "owner-a", 30_000);
      const p = fleet.prefix;
      expect((await client.keys(`${p}:run*`)).sort()).toEqual([`${p}:run-lease:k1`, `${p}:run:k1`, `${p}:runs`]);
      expect(await client.hget(`${p}:run:k1`, "rev")).toBe("1");
      expect(JSON.parse((await client.hget(`${p}:run:k1`, "data"))!)).toEqual(stateOf("k1"));
      expect(await client.pttl(`${p}:run:k1`)).toBe(-1);
      expect(await client.get(`${p}:run-lease:k1`)).toBe("owner-a");
      const ttl = await client.pttl(`${p}:run-lease:k1`);
      expect(ttl).toBeGreaterThan(20_000);
      expect(ttl).toBeLessThanOrEqual(30_000);
      // Renewal by the owner moves the expiry; another owner changes nothing.
      await checkpointer.lease("k1", "owner-a", 90_000);
      expect(await client.pttl(`${p}:run-lease:k1`)).toBeGreaterThan(60_000);
      expect(await checkpointer.lease("k1", "owner-b", 1_000)).toBe(false);
      expect(await client.get(`${p}:run-lease:k1`)).toBe("owner-a");
      // A run id with ":" cannot reach another run's lease key.
      await checkpointer.save("k1:x", stateOf("k1:x"), 0);
      expect((await checkpointer.list()).sort()).toEqual(["k1", "k1:x"]);
    }));

  it("a lease whose owner was a process of this host that is gone is free at once; a live or remote one holds", () =>
    withFleet(async (fleet, client) => {
      const checkpointer = fleet.checkpointer();
      const gone = spawnSync(process.execPath, ["-e", ""]).pid;
      const lease = `${fleet.prefix}:run-lease:held`;
      await client.set(lease, `${hostname()}:${gone}:dead0000`, "PX", 60_000);
      expect(await checkpointer.lease("held", `${hostname()}:${process.pid}:me`, 60_000)).toBe(true);
      expect(await client.get(lease)).toBe(`${hostname()}:${process.pid}:me`);
      // This live process's lease under another owner, and a dead pid on another host, still hold.
      expect(await checkpointer.lease("held", "third", 60_000)).toBe(false);
      await client.set(lease, `another-host.example:${gone}:x`, "PX", 60_000);
      expect(await checkpointer.lease("held", "third", 60_000)).toBe(false);
    }));

  it("two prefixes on one Redis are two separate stores", async () => {
    const [a, b] = [redisFleet({ url: redis.url }, nextPrefix()), redisFleet({ url: redis.url }, nextPrefix())];
    try {
      await a.checkpointer().save("same", stateOf("same"), 0);
      expect(await b.checkpointer().load("same")).toBeUndefined();
      expect(await b.checkpointer().list()).toEqual([]);
      expect(await b.checkpointer().lease("same", "x", 60_000)).toBe(true);
      expect(await a.checkpointer().lease("same", "y", 60_000)).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a corrupted, foreign or newer checkpoint, or a bad run id, is a typed error naming the run", () =>
    withFleet(async (fleet, client) => {
      const checkpointer = fleet.checkpointer();
      const p = fleet.prefix;
      const failure = (runId: string) => checkpointer.load(runId).catch((error: unknown) => error);
      await client.hset(`${p}:run:torn`, "rev", "3", "data", '{"kind":');
      expect(await failure("torn")).toMatchObject({ name: "CheckpointError", reason: "corrupt", runId: "torn" });
      await client.hset(`${p}:run:norev`, "data", JSON.stringify(stateOf("norev")));
      expect(await failure("norev")).toMatchObject({ reason: "corrupt", runId: "norev" });
      await client.hset(`${p}:run:other`, "rev", "1", "data", JSON.stringify(stateOf("someone-else")));
      expect(await failure("other")).toMatchObject({ reason: "foreign", runId: "other" });
      await client.set(`${p}:run:string`, "not a hash");
      const wrongType = await failure("string");
      expect(wrongType).toBeInstanceOf(CheckpointError);
      expect(wrongType).toMatchObject({ reason: "foreign", runId: "string" });
      expect((wrongType as Error).message).toContain(`${p}:run:string`);
      await client.hset(`${p}:run:future`, "rev", "1", "data", JSON.stringify({ ...stateOf("future"), version: 99 }));
      expect(await failure("future")).toMatchObject({ reason: "newer_version", runId: "future" });
      expect(() => checkpointer.load("../etc")).toThrow(ConfigError);
    }));

  it("a stale writer never overwrites: the stored state is the winner's", () =>
    withFleet(async (fleet) => {
      const checkpointer = fleet.checkpointer();
      await checkpointer.save("w", stateOf("w", "first"), 0);
      const stale = await checkpointer.save("w", stateOf("w", "stale"), 0).catch((error: unknown) => error);
      expect((stale as Error).message).toMatch(/revision 1 .* expected 0/);
      expect((await checkpointer.load("w"))!.state.messages[0]).toEqual({ role: "user", content: [{ type: "text", text: "first" }] });
    }));
});

describe.skipIf(!redisAvailable)("fleet.checkpointer() without Redis", () => {
  it("an unreachable Redis is a CheckpointError with reason io naming the URL with its password masked, without hanging", async () => {
    const gone = await startRedis({ password: "s3cret-pw" });
    const url = gone.url;
    await gone.stop();
    const fleet = redisFleet({ url }, nextPrefix());
    try {
      const began = Date.now();
      for (const call of [() => fleet.checkpointer().load("r"), () => fleet.checkpointer().save("r", stateOf("r"), 0), () => fleet.checkpointer().list()]) {
        const error = await call().catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(CheckpointError);
        expect(error).toMatchObject({ reason: "io" });
        expect((error as Error).message).toContain("***@127.0.0.1");
        expect((error as Error).message).not.toContain("s3cret-pw");
      }
      // Bounded by the link's first-answer wait (2 s), with room for a loaded machine.
      expect(Date.now() - began).toBeLessThan(15_000);
    } finally {
      await fleet.close();
    }
  });

  it("Redis killed under a running fleet: the next call is an io error, and it works again after a restart", async () => {
    const own = await startRedis();
    const fleet = redisFleet({ url: own.url }, nextPrefix());
    try {
      const checkpointer = fleet.checkpointer();
      expect(await checkpointer.save("k", stateOf("k"), 0)).toBe(1);
      if (own.process === undefined) return; // REDIS_URL: not ours to kill
      await own.kill();
      const error = await checkpointer.load("k").catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: "CheckpointError", reason: "io", runId: "k" });
      await own.restart();
      // No persistence in the test server: the restarted Redis is empty, and the store works again.
      const deadline = Date.now() + 15_000;
      while (!fleet.healthy && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await checkpointer.load("k")).toBeUndefined();
      expect(await checkpointer.save("k", stateOf("k"), 0)).toBe(1);
    } finally {
      await fleet.close();
      await own.stop();
    }
  });
});

describe.skipIf(!redisAvailable)("fleet.checkpointer() on a Redis that stops answering", () => {
  it("a command with no answer is a CheckpointError io after the timeout, not a hang", async () => {
    const own = await startRedis();
    if (own.process === undefined) return; // REDIS_URL: not ours to stop
    const link = new FleetLink({ url: own.url, shown: own.url }, nextPrefix());
    try {
      await link.settled;
      // Settled also means "gave up waiting for the first answer" (degraded), which a loaded machine can
      // reach before Redis answers; the link keeps trying, and this test needs it up before it stops Redis.
      const healthyBy = Date.now() + 15_000;
      while (!link.healthy && Date.now() < healthyBy) await new Promise((r) => setTimeout(r, 50));
      const checkpointer = redisCheckpointer(link, 300);
      expect(await checkpointer.save("s", stateOf("s"), 0)).toBe(1);
      own.process.kill("SIGSTOP");
      const error = await checkpointer.load("s").catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: "CheckpointError", reason: "io", runId: "s" });
      expect((error as Error).message).toContain("no answer within 300 ms");
      own.process.kill("SIGCONT");
      const deadline = Date.now() + 10_000;
      let loaded = await checkpointer.load("s").catch(() => undefined);
      while (loaded === undefined && Date.now() < deadline) loaded = await checkpointer.load("s").catch(() => undefined);
      expect(loaded?.revision).toBe(1);
    } finally {
      own.process.kill("SIGCONT");
      await link.close();
      await own.stop();
    }
  });
});

describe.skipIf(redisAvailable)("fleet.checkpointer()", () => {
  it.skip(INSTALL_REDIS, () => {});
});
