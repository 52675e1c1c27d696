/**
 * The observer's fleet view on a real Redis with two processes: the page of process A shows process B
 * (a child board with the same fleet, and no observer of its own) with its servers, and shows it gone
 * within the heartbeat's lease + 1 s of a kill -9. No secret of B's config reaches Redis or the page.
 */
import { hostname } from "node:os";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observe, Switchboard } from "../../src/index.js";
import { redisFleet } from "../../src/fleet/index.js";
import { LEASE_MS } from "../../src/fleet/link.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { startWorker, type Worker } from "../helpers/workers.js";
import { echoServer, node } from "../switchboard/board-helpers.js";
import { EventStream } from "./observe-helpers.js";
import type { MemberSummary } from "../../src/switchboard/member-summary.js";

const memberScript = fileURLToPath(new URL("../fixtures/fleet/observed-member.ts", import.meta.url));
const SECRET = "sekret-fleet-observer-7f3a9c";

describe.skipIf(!redisAvailable)("the observer's fleet view (real Redis, two processes)", () => {
  let redis: TestRedis;
  const workers: Worker[] = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGKILL");
    await Promise.all(workers.map((w) => w.done));
    await redis?.stop();
  });

  it("A's page shows B's servers; B killed -9 is shown gone within the lease + 1 s; no secret in Redis or on the page", async () => {
    const prefix = `observe-${Date.now()}`;
    const b = startWorker(memberScript, { MEMBER: JSON.stringify({ redis: redis.url, prefix, secret: SECRET }) });
    workers.push(b);
    await b.ready;
    const bPid = b.child.pid!;
    const fleet = redisFleet({ url: redis.url }, prefix);
    const a = new Switchboard({ servers: { alpha: { command: node, args: [echoServer] } }, fleet });
    const raw = new Redis(redis.url);
    let observer: Awaited<ReturnType<typeof observe>> | undefined;
    let stream: EventStream | undefined;
    try {
      await a.start();
      await fleet.ready();
      observer = await observe(a, { port: 0 });
      stream = new EventStream(observer.url);
      const page = stream;
      for (let i = 0; i < 20; i++) await a.callTool("alpha__echo", { text: `a ${i}` });

      const seen = await page.until(
        (s) =>
          s.fleet?.members.some((m) => m.pid === bPid && m.alive && m.servers?.some((x) => x.name === "beta" && x.state === "up" && x.callsPerSecond > 0)) ===
          true,
        20_000,
      );
      const members = seen.fleet!.members;
      const bView = members.find((m) => m.pid === bPid)!;
      expect(bView).toMatchObject({ self: false, host: hostname(), alive: true });
      expect(bView.id).toContain(`:${bPid}:`);
      expect(bView.uptimeMs).toBeGreaterThan(0);
      expect(bView.lastBeatAgoMs).toBeLessThan(LEASE_MS);
      const beta = bView.servers!.find((x) => x.name === "beta")!;
      expect(beta.p50).toBeGreaterThan(0);
      expect(beta.p99!).toBeGreaterThanOrEqual(beta.p50!);
      expect(beta.inFlight).toBeGreaterThanOrEqual(0);
      const aView = members.find((m) => m.self)!;
      expect(aView).toMatchObject({ pid: process.pid, alive: true });
      expect(aView.servers?.map((x) => x.name)).toEqual(["alpha"]);

      // What B sent, as Redis holds it, and every byte the page was sent: no secret of B's config.
      const statusKeys = await raw.keys(`${prefix}:status:*`);
      expect(statusKeys.length).toBe(2);
      for (const key of statusKeys) {
        const summary = (await raw.get(key)) ?? "";
        expect(summary).toContain('"servers"');
        expect(summary).not.toContain(SECRET);
        expect(summary).not.toContain("API_TOKEN");
        expect(summary).not.toContain("echo-server");
      }
      expect(page.raw).toContain('"beta"');
      expect(page.raw).not.toContain(SECRET);

      // The same, read from code.
      const direct = await observer.fleet();
      expect(direct!.members.map((m) => m.pid).sort()).toEqual([process.pid, bPid].sort());

      const killedAt = Date.now();
      b.child.kill("SIGKILL");
      const gone = await page.until((s) => s.at >= killedAt && s.fleet?.members.some((m) => m.pid === bPid && !m.alive) === true, LEASE_MS + 5_000);
      const took = gone.at - killedAt;
      console.log(`member killed -9: shown gone after ${took} ms (lease ${LEASE_MS} ms)`);
      expect(took).toBeLessThanOrEqual(LEASE_MS + 1_000);
      const goneView = gone.fleet!.members.find((m) => m.pid === bPid)!;
      // Its last summary is kept with it; A itself is still alive.
      expect(goneView.servers?.map((x) => x.name)).toEqual(["beta"]);
      expect(gone.fleet!.members.find((m) => m.self)?.alive).toBe(true);

      // Closing the observer leaves the member counting for its summary; another observer may open.
      await stream.close();
      await observer.close();
      expect(a.callTap).toBeDefined();
      observer = await observe(a, { port: 0 });
      expect((await observer.fleet())!.members.some((m) => m.self && m.servers?.[0]?.name === "alpha")).toBe(true);
    } finally {
      await stream?.close();
      await observer?.close();
      await a.stop();
      await fleet.close();
      raw.disconnect();
    }
  }, 60_000);
});

describe.skipIf(!redisAvailable)("a fleet member's call counting (real Redis)", () => {
  it("counts calls only while an observer of the fleet reads the members, so an unwatched fleet pays nothing per call", async () => {
    const redis = await startRedis();
    const prefix = `watched-${Date.now()}`;
    const fleet = redisFleet({ url: redis.url }, prefix);
    const a = new Switchboard({ servers: { alpha: { command: node, args: [echoServer] } }, fleet });
    // Another process's view of the fleet: a second fleet link reading the members, as its page does.
    const reader = redisFleet({ url: redis.url }, prefix);
    const raw = new Redis(redis.url);
    try {
      await a.start();
      await Promise.all([fleet.ready(), reader.ready()]);
      await new Promise((resolve) => setTimeout(resolve, 1_200)); // a heartbeat or more: still nobody watching
      expect(a.callTap).toBeUndefined();
      await reader.memberStatuses!();
      await waitUntil(() => a.callTap !== undefined, 3_000);
      for (let i = 0; i < 5; i++) await a.callTool("alpha__echo", { text: `a ${i}` });
      const counted = await waitUntil(async () => {
        const mine = (await reader.memberStatuses!()).find((m) => m.member === fleet.member);
        const alpha = (JSON.parse(mine?.summary ?? "{}") as MemberSummary).servers?.find((x) => x.name === "alpha");
        return alpha !== undefined && alpha.callsPerSecond > 0;
      }, 5_000);
      expect(counted).toBe(true);
      // Nobody reads any more (the mark lapses): the tap goes at the next heartbeat.
      await raw.del(`${prefix}:watched`);
      await waitUntil(() => a.callTap === undefined, 3_000);
      expect(a.callTap).toBeUndefined();
    } finally {
      await a.stop();
      await fleet.close();
      await reader.close();
      raw.disconnect();
      await redis.stop();
    }
  }, 30_000);
});

async function waitUntil(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

describe.skipIf(redisAvailable)("the observer's fleet view", () => {
  it.skip(INSTALL_REDIS, () => {});
});

describe("the observer's fleet view with the fleet's Redis away", () => {
  it("says so, naming the URL with its password masked, instead of listing no members", async () => {
    const fleet = redisFleet({ url: "redis://:sekret-redis-pw@127.0.0.1:1" }, `away-${Date.now()}`);
    const a = new Switchboard({ servers: { alpha: { command: node, args: [echoServer] } }, fleet });
    const observer = await observe(a, { port: 0 });
    try {
      await fleet.ready();
      const view = await observer.fleet();
      expect(view?.error).toContain("the fleet's Redis redis://:***@127.0.0.1:1");
      expect(JSON.stringify(view)).not.toContain("sekret-redis-pw");
      expect(observer.snapshot().fleet?.error).toBe(view?.error);
    } finally {
      await observer.close();
      await a.stop();
      await fleet.close();
    }
  }, 30_000);
});
