/**
 * A worker killed -9 inside the window between the token response and the commit (a process suite:
 * real processes, real Redis). The rotating authorization server holds its token response after it
 * rotated the tokens (the old refresh token is spent) and signals the test, which kills the worker
 * before the tokens can reach it, let alone Redis: the rotated refresh token is lost. A member started
 * after it finds the abandoned refresh (the dead owner's mark on the credential), spends the stored
 * refresh token once, is refused, removes that generation and emits exactly one
 * `reauthorization-required`; its later calls fail with "authorization required", never a refresh loop.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisFleet } from "../../src/fleet/index.js";
import { canonicalServerUri } from "../../src/auth/discovery.js";
import { startWorker } from "../helpers/workers.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { CLIENT, startRotatingServer } from "../fixtures/fleet/rotating-server.js";

const worker = fileURLToPath(new URL("../fixtures/fleet/storm-worker.ts", import.meta.url));

describe.skipIf(!redisAvailable)("a worker killed -9 between the token response and the commit (real Redis, real processes)", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("one reauthorization-required in the surviving member, one refused refresh, no loop", async () => {
    let inWindow!: () => void;
    const refreshHeld = new Promise<void>((resolve) => (inWindow = resolve));
    let release!: () => void;
    const killed = new Promise<void>((resolve) => (release = resolve));
    let held = false;
    const rotating = await startRotatingServer({
      accessTtlMs: 300,
      beforeRefreshReply: () => {
        if (held) return Promise.resolve();
        held = true;
        inWindow();
        return killed;
      },
    });
    try {
      const login = rotating.login();
      const now = Date.now();
      const prefix = `reauth-${now}`;
      const fleet = redisFleet({ url: redis.url }, prefix);
      const tokens = {
        accessToken: login.accessToken,
        tokenType: "bearer",
        refreshToken: login.refreshToken,
        expiresAt: now + login.expiresInMs,
        obtainedAt: now,
      };
      await fleet.tokenStore().update(canonicalServerUri(new URL(rotating.url)), rotating.issuer, () => ({ tokens, updatedAt: now }));
      await fleet.close();
      const settings = { url: rotating.url, pauseMs: 8, ...CLIENT, redis: redis.url, prefix };

      // A's first call finds the access token expired and refreshes: the server rotates and holds the answer.
      const a = startWorker(worker, { STORM: JSON.stringify({ ...settings, calls: 1_000 }) });
      await refreshHeld;
      expect(rotating.stats.refreshes).toBe(1);
      a.child.kill("SIGKILL");
      expect(await a.done).toBeUndefined(); // killed before it printed an outcome
      release();

      const b = startWorker(worker, { STORM: JSON.stringify({ ...settings, calls: 30 }) });
      const outcome = await b.done;
      expect(outcome).toBeDefined();
      console.log(
        `reauth: survivor saw ${JSON.stringify(outcome!.fleetEvents)}; server: ${rotating.stats.refreshes} refreshes, ${rotating.stats.invalidGrants} invalid_grant`,
      );
      expect((outcome!.fleetEvents as string[]).filter((type) => type === "reauthorization-required")).toHaveLength(1);
      expect(rotating.stats.invalidGrants).toBe(1); // refused once: no refresh loop
      expect(rotating.stats.refreshes).toBe(1);
      expect(outcome!.ok).toBe(0);
      expect(outcome!.errors.some((message) => /authorization required/.test(message))).toBe(true);
    } finally {
      release();
      await rotating.close();
    }
  }, 90_000);
});

describe.skipIf(redisAvailable)("a worker killed -9 between the token response and the commit", () => {
  it.skip(INSTALL_REDIS, () => {});
});
