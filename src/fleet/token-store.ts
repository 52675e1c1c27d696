/**
 * `fleet.tokenStore()`: OAuth credentials in Redis, one grant and one refresh for the whole fleet.
 *
 * `update` (the read-modify-write a refresh runs inside, see src/auth/flows.ts) holds a lease on the
 * entry: SET NX PX with an owner, renewed while the token request runs, released only by its owner
 * (Lua). The write checks and bumps the entry's revision atomically with the lease (scripts.ts,
 * COMMIT), so a writer whose lease lapsed never writes over a newer generation, and removing refused
 * tokens removes only the generation that was refused. A process that finds the lease taken waits
 * until it is released (or lapses) and then runs its change on what the winner wrote, which adopts
 * the winner's tokens instead of spending the rotated refresh token again. In front of all this the
 * process's own single flight (src/auth/session.ts) makes 64 local callers one update.
 *
 * While Redis is away, the process works on its own memory store, seeded with what it last read.
 */
import { memoryTokenStore, type StoredAuth, type TokenStore } from "../auth/token-store.js";
import { LEASE_MS, type FleetLink } from "./link.js";

/** Longest a process waits for another's lease before trying to take it (a lease lapses sooner). */
const WAIT_STEP_MS = 20;

export function redisTokenStore(link: FleetLink): TokenStore {
  const local = memoryTokenStore();
  const chains = new Map<string, Promise<unknown>>();
  let owners = 0;
  const entryKey = (server: string, issuer: string) => link.key("auth", server, issuer);
  const issuersKey = (server: string) => link.key("auth-issuers", server);
  const remember = (server: string, issuer: string, value: StoredAuth | undefined) => local.update(server, issuer, () => value).catch(() => undefined);

  const shared = async (server: string, issuer: string, change: Parameters<TokenStore["update"]>[2]): Promise<StoredAuth | undefined> => {
    const client = link.client;
    if (!link.healthy || client === undefined) return local.update(server, issuer, change);
    const key = entryKey(server, issuer);
    const lease = `${key}:lease`;
    const owner = `${link.member}:${++owners}`;
    for (;;) {
      if ((await client.set(lease, owner, "PX", LEASE_MS, "NX")) === "OK") break;
      // Another process is refreshing: wait for it, then run the change on what it wrote.
      const left = await client.pttl(lease);
      if (left > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(left, WAIT_STEP_MS)));
    }
    const renew = setInterval(() => void client.sbRenew(lease, owner, LEASE_MS).catch(() => {}), LEASE_MS / 3);
    let committed = false;
    try {
      const [revText, data, pending] = await client.hmget(key, "rev", "data", "pending");
      const current = data ? (JSON.parse(data) as StoredAuth) : undefined;
      // The last owner took the lease and never wrote nor released it: it died mid-update, maybe after
      // the authorization server rotated the refresh token it spent.
      const abandoned = pending !== null && pending !== owner;
      await client.hset(key, "pending", owner);
      const next = await change(current === undefined ? undefined : structuredClone(current));
      const written = next === undefined ? undefined : { ...next, updatedAt: Date.now() };
      const payload = written === undefined ? "" : JSON.stringify(written);
      if (payload === (data ?? "")) {
        await client.hdel(key, "pending");
        void remember(server, issuer, current);
        return current;
      }
      const rev = await client.sbCommit(key, lease, issuersKey(server), owner, Number(revText ?? 0), payload, Date.now(), issuer);
      if (rev < 0) {
        // Lapsed under us (a token request slower than the lease): what the fleet holds now wins.
        const now = await client.hget(key, "data");
        return now ? (JSON.parse(now) as StoredAuth) : undefined;
      }
      committed = true;
      await client.hdel(key, "pending");
      if (abandoned && current?.tokens !== undefined && written?.tokens === undefined) {
        link.emit("event", {
          type: "reauthorization-required",
          server,
          reason: "a process died between a token response and storing it; the rotated refresh token is lost; authorize again",
        });
      }
      void remember(server, issuer, written);
      return written;
    } finally {
      clearInterval(renew);
      if (!committed) await client.sbRelease(lease, owner).catch(() => {});
    }
  };

  const orLocal = async <T>(work: () => Promise<T>, fallback: () => Promise<T>): Promise<T> => {
    // A process that just started asks Redis, not its empty memory, unless Redis is found away.
    if (!link.isSettled) await link.settled;
    if (!link.healthy) return fallback();
    try {
      return await work();
    } catch (error) {
      link.failed(error);
      if (link.healthy) throw error;
      return fallback();
    }
  };

  return {
    id: `redis:${link.prefix}`,
    async get(server, issuer) {
      return orLocal(
        async () => {
          const data = await link.client!.hget(entryKey(server, issuer), "data");
          const value = data ? (JSON.parse(data) as StoredAuth) : undefined;
          void remember(server, issuer, value);
          return value;
        },
        () => local.get(server, issuer),
      );
    },
    update(server, issuer, change) {
      // One update per entry at a time in this process: the lease is per process, not per caller.
      const chainKey = `${server}\n${issuer}`;
      const run = (chains.get(chainKey) ?? Promise.resolve()).then(() =>
        orLocal(
          () => shared(server, issuer, change),
          () => local.update(server, issuer, change),
        ),
      );
      const settled = run.catch(() => undefined);
      chains.set(chainKey, settled);
      void settled.then(() => {
        if (chains.get(chainKey) === settled) chains.delete(chainKey);
      });
      return run;
    },
    async delete(server, issuer) {
      await local.delete(server, issuer);
      await orLocal(
        async () => {
          const client = link.client!;
          const issuers = issuer === undefined ? await client.zrange(issuersKey(server), 0, -1) : [issuer];
          if (issuers.length > 0) await client.del(...issuers.map((one) => entryKey(server, one)));
          if (issuer === undefined) await client.del(issuersKey(server));
          else await client.zrem(issuersKey(server), issuer);
        },
        async () => {},
      );
    },
    async issuers(server) {
      return orLocal(
        () => link.client!.zrevrange(issuersKey(server), 0, -1),
        () => local.issuers(server),
      );
    },
  };
}
