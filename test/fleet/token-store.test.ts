/**
 * `fleet.tokenStore()` on its own (two members in this process, each its own connection): updates of
 * one entry never overlap across members and the later one runs on what the earlier wrote (so it adopts
 * instead of refreshing again); a member that died mid-update (its lease lapsed, its pending mark left)
 * followed by a refused refresh is one `reauthorization-required` event; without Redis the store works
 * on the process's own memory.
 */
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisFleet } from "../../src/fleet/index.js";
import type { FleetEvent } from "../../src/index.js";
import type { StoredAuth } from "../../src/auth/token-store.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";

const auth = (accessToken: string): StoredAuth => ({
  tokens: { accessToken, tokenType: "bearer", refreshToken: `r-${accessToken}`, obtainedAt: Date.now(), expiresAt: Date.now() + 60_000 },
  updatedAt: Date.now(),
});

describe.skipIf(!redisAvailable)("the fleet's token store (real Redis)", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("updates of one entry from two members never overlap; the later runs on what the earlier wrote", async () => {
    const prefix = `store-${Date.now()}`;
    const [a, b] = [redisFleet({ url: redis.url }, prefix), redisFleet({ url: redis.url }, prefix)];
    try {
      await a.tokenStore().update("https://mcp.example/", "https://as.example", () => auth("t0"));
      let running = 0;
      let overlapped = false;
      const seen: string[] = [];
      const refresh = (name: string) => async (current: StoredAuth | undefined) => {
        running++;
        if (running > 1) overlapped = true;
        seen.push(`${name} saw ${current?.tokens?.accessToken}`);
        await new Promise((resolve) => setTimeout(resolve, 150));
        running--;
        // What src/auth/flows.ts does: tokens newer than the ones this member had are adopted, not refreshed.
        return current?.tokens?.accessToken === "t0" ? auth(`t1-by-${name}`) : current;
      };
      const [fromA, fromB] = await Promise.all([
        a.tokenStore().update("https://mcp.example/", "https://as.example", refresh("a")),
        b.tokenStore().update("https://mcp.example/", "https://as.example", refresh("b")),
      ]);
      expect(overlapped).toBe(false);
      expect(seen).toHaveLength(2);
      expect(seen.filter((line) => line.endsWith("saw t0"))).toHaveLength(1);
      expect(fromA?.tokens?.accessToken).toBe(fromB?.tokens?.accessToken);
      expect((await b.tokenStore().get("https://mcp.example/", "https://as.example"))?.tokens?.accessToken).toBe(fromA?.tokens?.accessToken);
      expect(await a.tokenStore().issuers("https://mcp.example/")).toEqual(["https://as.example"]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a member that died mid-update, then a refused refresh: one reauthorization-required event", async () => {
    const prefix = `died-${Date.now()}`;
    const fleet = redisFleet({ url: redis.url }, prefix);
    const admin = new Redis(redis.url);
    const events: FleetEvent[] = [];
    fleet.onEvent((event) => events.push(event));
    try {
      const store = fleet.tokenStore();
      await store.update("https://mcp.example/", "https://as.example", () => auth("t0"));
      // What a member killed -9 after its token request leaves: its pending mark; its lease lapses.
      await admin.hset(`${prefix}:auth:https://mcp.example/:https://as.example`, "pending", "dead-member:1");
      // The next refresh spends the old refresh token: refused, so the tokens are removed.
      const written = await store.update("https://mcp.example/", "https://as.example", (current) => ({ ...current!, tokens: undefined }));
      expect(written?.tokens).toBeUndefined();
      expect(events.filter((event) => event.type === "reauthorization-required")).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: "reauthorization-required", server: "https://mcp.example/" });
    } finally {
      admin.disconnect();
      await fleet.close();
    }
  });
});

describe("the fleet's token store without Redis", () => {
  it("works on the process's own memory, and says it is degraded", async () => {
    const fleet = redisFleet({ url: "redis://127.0.0.1:1" }, "nowhere");
    const events: FleetEvent[] = [];
    fleet.onEvent((event) => events.push(event));
    try {
      const store = fleet.tokenStore();
      await store.update("https://mcp.example/", "https://as.example", () => auth("local"));
      expect((await store.get("https://mcp.example/", "https://as.example"))?.tokens?.accessToken).toBe("local");
      expect(events.map((event) => event.type)).toEqual(["degraded"]);
    } finally {
      await fleet.close();
    }
  });
});

describe.skipIf(redisAvailable)("the fleet's token store", () => {
  it.skip(INSTALL_REDIS, () => {});
});
