/**
 * Lists shared by the fleet, with members in this process (each its own Redis connections and
 * member id), each with its own server stand-in that counts the listings it answers:
 * - B starts after A and lists tools, resources and prompts from A's kept copies: its server sees no
 *   `tools/list`, `resources/list` or `prompts/list`;
 * - B hears A's server's list_changed within 500 ms and sees the new list;
 * - a list the server marks `cacheScope: "private"` never reaches Redis; a public one's `ttlMs`
 *   bounds how long the copy is served;
 * - a change published while B's subscriber was cut off is found by the re-check after it reconnects;
 * - a lazy server lists and searches from the fleet's copy without starting.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { Switchboard, type SwitchboardInit } from "../../src/index.js";
import { redisFleet, type RedisFleet } from "../../src/fleet/index.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { modernServer } from "../helpers/modern-server.js";
import { waitFor } from "../helpers/processes.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!redisAvailable)("shared lists (real Redis)", () => {
  let redis: TestRedis;
  let admin: Redis;
  const opened: Array<{ board: Switchboard; fleet: RedisFleet }> = [];
  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
  });
  afterEach(async () => {
    for (const { board, fleet } of opened.splice(0)) {
      await board.stop();
      await fleet.close();
    }
  });
  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
  });

  const legacyServer = (tools: () => unknown[]) => {
    const server = new ScriptedServer()
      .on("tools/list", () => ({ tools: tools() }))
      .on("resources/list", () => ({ resources: [{ uri: "mem://a", name: "a" }] }))
      .on("prompts/list", () => ({ prompts: [{ name: "greet" }] }));
    server.capabilities = { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true } };
    return server;
  };

  const member = async (prefix: string, server: ScriptedServer, entry: Partial<SwitchboardInit["servers"][string]> = { protocol: "legacy" }) => {
    const fleet = redisFleet({ url: redis.url }, prefix);
    const board = new Switchboard({ servers: { s: { transport: () => server.clientSide, ...entry } }, fleet });
    opened.push({ board, fleet });
    const changes: number[] = [];
    board.on("listsChanged", () => changes.push(Date.now()));
    await board.start();
    await fleet.ready();
    await board.listTools(); // shares the listing the board began when the server came up
    return { board, fleet, server, changes };
  };
  /** Waits until the copy a member keeps in the background is in Redis. */
  const keptIn = async (key: string) => {
    for (let i = 0; i < 200 && (await admin.exists(key)) === 0; i++) await sleep(10);
    expect(await admin.exists(key)).toBe(1);
  };

  it("B lists tools, resources and prompts from A's kept copies: no listing reaches B's server", async () => {
    const prefix = `cold-${Date.now()}`;
    const tools = () => [{ name: "t", inputSchema: { type: "object" } }];
    const a = await member(prefix, legacyServer(tools));
    expect(await a.board.listResources()).toHaveLength(1);
    expect(await a.board.listPrompts()).toHaveLength(1);
    for (const kind of ["tools", "resources", "prompts"]) await keptIn(`${prefix}:server:s:list:${kind}`);
    expect(a.server.messages("tools/list")).toHaveLength(1);

    const b = await member(prefix, legacyServer(tools));
    expect((await b.board.listTools()).map((tool) => tool.name)).toEqual(["s__t"]);
    expect((await b.board.searchTools("t")).map((hit) => hit.name)).toEqual(["s__t"]);
    expect(await b.board.listResources()).toEqual([{ uri: "mem://a", name: "a", server: "s" }]);
    expect((await b.board.listPrompts()).map((prompt) => prompt.name)).toEqual(["s__greet"]);
    for (const method of ["tools/list", "resources/list", "prompts/list"]) expect(b.server.messages(method), method).toHaveLength(0);
    // B still has its own connection for calls.
    expect((await b.board.callTool("s__t", {})).content).toBeDefined();
    expect(b.server.messages("tools/call")).toHaveLength(1);
  });

  it("B hears A's list_changed within 500 ms and sees the new list; A's list is kept in Redis", async () => {
    let version = 1;
    const tools = () => [{ name: `tool${version}`, inputSchema: { type: "object" } }];
    const prefix = `lists-${Date.now()}`;
    const a = await member(prefix, legacyServer(tools));
    const b = await member(prefix, legacyServer(tools));
    await sleep(100); // B's subscription is up
    const bChangesBefore = b.changes.length;

    version = 2;
    const sentAt = Date.now();
    a.server.notify("notifications/tools/list_changed");
    await waitFor(() => b.changes.length > bChangesBefore, 2_000);
    const heardAfter = b.changes.at(-1)! - sentAt;
    console.log(`lists: B heard of A's list_changed after ${heardAfter} ms`);
    expect(heardAfter).toBeLessThanOrEqual(500);
    let names: string[] = [];
    for (let i = 0; i < 100 && names[0] !== "s__tool2"; i++, await sleep(10)) names = (await b.board.listTools()).map((tool) => tool.name);
    expect(names).toEqual(["s__tool2"]);
    await waitFor(() => a.server.messages("tools/list").length >= 2);
    for (let i = 0; i < 100 && (await a.fleet.keptTools("s"))?.length !== 1; i++) await sleep(10);
    let kept = await a.fleet.keptTools("s");
    for (let i = 0; i < 100 && JSON.stringify(kept).includes("tool1"); i++, await sleep(10)) kept = await a.fleet.keptTools("s");
    expect(kept).toEqual([{ name: "tool2", inputSchema: { type: "object" } }]);

    // A third member starting now takes the new copy, not the old.
    const c = await member(prefix, legacyServer(tools));
    expect((await c.board.listTools()).map((tool) => tool.name)).toEqual(["s__tool2"]);
    expect(c.server.messages("tools/list")).toHaveLength(0);
  });

  it("a resources list_changed outdates the kept copy: the next member lists resources itself", async () => {
    const prefix = `res-${Date.now()}`;
    const tools = () => [{ name: "t", inputSchema: { type: "object" } }];
    const a = await member(prefix, legacyServer(tools));
    await a.board.listResources();
    await keptIn(`${prefix}:server:s:list:resources`);
    const version = await admin.get(`${prefix}:server:s:lists-version`);
    a.server.notify("notifications/resources/list_changed");
    for (let i = 0; i < 200 && (await admin.get(`${prefix}:server:s:lists-version`)) === version; i++) await sleep(10);
    const b = await member(prefix, legacyServer(tools));
    await b.board.listResources();
    expect(b.server.messages("resources/list")).toHaveLength(1);
  });

  it("a list marked private never reaches Redis; a public list's ttlMs bounds how long its copy is served", async () => {
    const prefix = `scope-${Date.now()}`;
    const modern = { client: { autoListen: false } };
    // modernServer() marks its tool list private.
    const a = await member(prefix, modernServer(), modern);
    expect(a.board.client("s")!.era).toBe("modern");
    await sleep(100);
    expect(await admin.keys(`${prefix}:server:s:list:*`)).toEqual([]);
    const b = await member(prefix, modernServer(), modern);
    expect(b.server.messages("tools/list")).toHaveLength(1);

    const publicServer = () =>
      modernServer().on("tools/list", () => ({
        resultType: "complete",
        ttlMs: 400,
        cacheScope: "public",
        tools: [{ name: "echo", inputSchema: { type: "object" } }],
      }));
    const prefix2 = `${prefix}-public`;
    const c = await member(prefix2, publicServer(), modern);
    await keptIn(`${prefix2}:server:s:list:tools`);
    const ttl = await admin.pttl(`${prefix2}:server:s:list:tools`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(400);
    const d = await member(prefix2, publicServer(), modern);
    expect(d.server.messages("tools/list")).toHaveLength(0); // served from C's copy
    expect(c.server.messages("tools/list")).toHaveLength(1);
    for (let i = 0; i < 100 && (await admin.exists(`${prefix2}:server:s:list:tools`)) === 1; i++) await sleep(10);
    const e = await member(prefix2, publicServer(), modern);
    expect(e.server.messages("tools/list")).toHaveLength(1); // the copy's ttlMs ran out: listed cold
  });

  it("a change missed while B's subscriber was disconnected is found by the re-check on reconnect", async () => {
    const prefix = `recheck-${Date.now()}`;
    const tools = () => [{ name: "t", inputSchema: { type: "object" } }];
    const a = await member(prefix, legacyServer(tools));
    const b = await member(prefix, legacyServer(tools));
    await sleep(100);
    const before = b.changes.length;
    const listed = () => a.server.messages("tools/list").length + b.server.messages("tools/list").length;
    const listedBefore = listed();
    // A change whose message B never got (bumped, not published), then a blip that drops every
    // subscriber connection: B's re-check after it reconnects must find it and list again. A re-checks
    // too, so whichever lists first asks its server and the other may take that copy from the fleet:
    // one more tools/list between the two servers, not necessarily B's.
    await admin.incr(`${prefix}:server:s:lists-version`);
    await admin.client("KILL", "TYPE", "pubsub");
    await waitFor(() => b.changes.length > before, 5_000);
    await waitFor(() => listed() > listedBefore);
    expect((await b.board.listTools()).map((tool) => tool.name)).toEqual(["s__t"]);
  });

  it("a lazy server with a fleet copy of its tools lists and searches without starting", async () => {
    const prefix = `lazy-${Date.now()}`;
    const tools = () => [{ name: "search_issues", description: "Find issues by text", inputSchema: { type: "object" } }];
    await member(prefix, legacyServer(tools));
    await keptIn(`${prefix}:server:s:list:tools`);

    let started = 0;
    const sleeper = legacyServer(tools);
    const lazy = await (async () => {
      const fleet = redisFleet({ url: redis.url }, prefix);
      const board = new Switchboard({ servers: { s: { transport: () => (started++, sleeper.clientSide), protocol: "legacy", lazy: true } }, fleet });
      opened.push({ board, fleet });
      await board.start();
      return board;
    })();
    expect((await lazy.listTools()).map((tool) => tool.name)).toEqual(["s__search_issues"]);
    expect((await lazy.searchTools("issues")).map((hit) => hit.name)).toEqual(["s__search_issues"]);
    expect(started).toBe(0);
    expect(lazy.status().s.state).toBe("idle");
    // The first call starts it.
    await lazy.callTool("s__search_issues", {});
    expect(started).toBe(1);
  });
});

describe.skipIf(redisAvailable)("shared lists", () => {
  it.skip(INSTALL_REDIS, () => {});
});
