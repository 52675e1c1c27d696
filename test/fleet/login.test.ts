/**
 * `mcp-switchboard login` with a config that has a fleet: the tokens go to the fleet's token store in
 * Redis (where the fleet's boards look for them), not to a token file; a board of the fleet then comes
 * up with them, and `logout` removes them from Redis. An unreachable fleet Redis is a ConfigError
 * naming the field, never tokens stored where no process of the fleet would read them.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { Switchboard } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { browse } from "../auth/fixtures/authorization-server.js";
import { startProtectedPair, temporaryDirectories } from "../auth/fixtures/setup.js";

const track = closeAfterEach();
const tempDirectory = temporaryDirectories();

describe.skipIf(!redisAvailable)("login with a fleet (real Redis)", () => {
  let redis: TestRedis;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startRedis();
    admin = new Redis(redis.url);
  });
  afterAll(async () => {
    admin?.disconnect();
    await redis?.stop();
  });

  it("writes the tokens to the fleet's token store; a board of the fleet comes up with them; logout removes them", async () => {
    const { mcp } = await startProtectedPair(track);
    const directory = await tempDirectory();
    const config = join(directory, "mcp.json");
    const prefix = `login-${Date.now()}`;
    await writeFile(
      config,
      JSON.stringify({ fleet: { redis: redis.url, prefix }, mcpServers: { docs: { url: mcp.url, oauth: { clientName: "fleet login" } } } }),
    );

    const err: string[] = [];
    const browsing: Promise<unknown>[] = [];
    const io = { out: (line: string) => void (line.startsWith("http") && browsing.push(browse(line))), err: (line: string) => void err.push(line) };
    expect(await main(["login", "docs", "--config", config], io), err.join("\n")).toBe(0);
    await Promise.all(browsing);
    expect(err.at(-1)).toMatch(new RegExp(`credentials stored in the fleet's Redis .* \\(prefix "${prefix}"\\)$`));
    const keys = await admin.keys(`${prefix}:auth:*`);
    expect(keys.some((key) => key.includes(mcp.resource))).toBe(true);
    expect(existsSync(join(directory, "tokens.json"))).toBe(false);

    const board = await Switchboard.fromConfig(config);
    track({ close: () => board.stop() });
    await board.start();
    expect(board.status().docs.state).toBe("up");
    expect((await board.callTool("docs__echo", { text: "fleet" })).content).toEqual([{ type: "text", text: "fleet" }]);
    await board.stop();

    expect(await main(["logout", "docs", "--config", config], io)).toBe(0);
    const entry = await admin.hget(
      keys.find((key) => !key.endsWith(":lease"))!,
      "data",
    );
    expect(entry).toBeNull();
  });

  it("a fleet Redis that does not answer: login fails naming fleet.redis, storing nothing", async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const directory = await tempDirectory();
    const config = join(directory, "mcp.json");
    await writeFile(
      config,
      JSON.stringify({ fleet: { redis: `redis://:hunter2@127.0.0.1:${port}` }, mcpServers: { docs: { url: "http://127.0.0.1:9/mcp", oauth: {} } } }),
    );
    const err: string[] = [];
    expect(await main(["login", "docs", "--config", config], { out: () => {}, err: (line) => void err.push(line) })).toBe(1);
    expect(err.at(-1)).toMatch(/fleet\.redis.*does not answer/);
    expect(err.at(-1)).not.toContain("hunter2");
  });
});

describe.skipIf(redisAvailable)("login with a fleet", () => {
  it.skip(INSTALL_REDIS, () => {});
});
