/**
 * Lists shared by the fleet, with two members in this process (each its own Redis
 * connections and member id), each with its own server process stand-in: B hears of A's server's
 * list_changed through the fleet within 500 ms and lists again; the tools A listed are kept in Redis;
 * a change published while B's subscriber was cut off is found by the re-check after it reconnects.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { Switchboard } from "../../src/index.js";
import { redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { waitFor } from "../helpers/processes.js";

describe.skipIf(!redisAvailable)("shared lists (real Redis)", () => {
  let redis: TestRedis;
  const opened: Array<{ board: Switchboard; fleet: RedisFleet }> = [];
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterEach(async () => {
    for (const { board, fleet } of opened.splice(0)) {
      await board.stop();
      await fleet.close();
    }
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const member = async (prefix: string, tools: () => unknown[]) => {
    const server = new ScriptedServer().on("tools/list", () => ({ tools: tools() }));
    const fleet = redisFleet({ url: redis.url }, prefix);
    const board = new Switchboard({ servers: { s: { transport: () => server.clientSide, protocol: "legacy" } }, fleet });
    opened.push({ board, fleet });
    const changes: number[] = [];
    board.on("listsChanged", () => changes.push(Date.now()));
    await board.start();
    await fleet.ready();
    await waitFor(() => server.messages("tools/list").length === 1);
    return { board, fleet, server, changes };
  };

  it("B hears A's list_changed within 500 ms and lists again; A's list is kept in Redis", async () => {
    let version = 1;
    const tools = () => [{ name: `tool${version}`, inputSchema: { type: "object" } }];
    const prefix = `lists-${Date.now()}`;
    const a = await member(prefix, tools);
    const b = await member(prefix, tools);
    await new Promise((resolve) => setTimeout(resolve, 100)); // B's subscription is up
    const bChangesBefore = b.changes.length;

    version = 2;
    const sentAt = Date.now();
    a.server.notify("notifications/tools/list_changed");
    await waitFor(() => b.changes.length > bChangesBefore, 2_000);
    const heardAfter = b.changes.at(-1)! - sentAt;
    console.log(`lists: B heard of A's list_changed after ${heardAfter} ms`);
    expect(heardAfter).toBeLessThanOrEqual(500);
    await waitFor(() => b.server.messages("tools/list").length >= 2);
    expect((await b.board.listTools()).map((tool) => tool.name)).toEqual(["s__tool2"]);
    await waitFor(() => a.server.messages("tools/list").length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await a.fleet.keptTools("s")).toEqual([{ name: "tool2", inputSchema: { type: "object" } }]);
  });

  it("a change missed while B's subscriber was disconnected is found by the re-check on reconnect", async () => {
    const prefix = `recheck-${Date.now()}`;
    const tools = () => [{ name: "t", inputSchema: { type: "object" } }];
    await member(prefix, tools);
    const b = await member(prefix, tools);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const before = b.changes.length;
    const admin = new Redis(redis.url);
    try {
      // A change whose message B never got (bumped, not published), then a blip that drops every
      // subscriber connection: B's re-check after it reconnects must find it.
      await admin.incr(`${prefix}:server:s:lists-version`);
      await admin.client("KILL", "TYPE", "pubsub");
      await waitFor(() => b.changes.length > before, 5_000);
      await waitFor(() => b.server.messages("tools/list").length >= 2);
    } finally {
      admin.disconnect();
    }
  });
});

describe.skipIf(redisAvailable)("shared lists", () => {
  it.skip(INSTALL_REDIS, () => {});
});
