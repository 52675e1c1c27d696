/**
 * Without a fleet nothing changes and nothing extra loads: a board's whole life loads none
 * of src/fleet/ nor ioredis. The same run with a "fleet" in its config loads both, so the check can fail.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const recorder = fileURLToPath(new URL("../fixtures/fleet/record-loads.mjs", import.meta.url));
const run = fileURLToPath(new URL("../fixtures/fleet/board-run.ts", import.meta.url));
const echo = fileURLToPath(new URL("../../examples/servers/echo-server.mjs", import.meta.url));

function loadedBy(config: unknown): string[] {
  const dir = mkdtempSync(join(tmpdir(), "mcpsb-loads-"));
  try {
    const log = join(dir, "loads.txt");
    const child = spawnSync(process.execPath, ["--import", "tsx", "--import", recorder, run], {
      cwd: root,
      env: { ...process.env, LOAD_LOG: log, BOARD_CONFIG: JSON.stringify(config) },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.status, child.stderr).toBe(0);
    return readFileSync(log, "utf8").split("\n").filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const servers = { echo: { command: process.execPath, args: [echo] } };
const isFleetModule = (url: string) => url.includes("/src/fleet/") || url.includes("/node_modules/ioredis/");

describe("a board without a fleet", () => {
  it("loads none of src/fleet/ nor ioredis", () => {
    const loaded = loadedBy({ mcpServers: servers });
    expect(loaded.some((url) => url.includes("/src/switchboard/switchboard.ts"))).toBe(true);
    expect(loaded.filter(isFleetModule)).toEqual([]);
  }, 90_000);
});

describe.skipIf(!redisAvailable)("a board with a fleet in its config", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("loads src/fleet/ and ioredis (the check above can fail)", () => {
    const loaded = loadedBy({ fleet: { redis: redis.url, prefix: "lazy" }, mcpServers: servers });
    expect(loaded.some((url) => url.includes("/src/fleet/index.ts"))).toBe(true);
    expect(loaded.some((url) => url.includes("/node_modules/ioredis/"))).toBe(true);
  }, 90_000);
});

describe.skipIf(redisAvailable)("a board with a fleet in its config", () => {
  it.skip(INSTALL_REDIS, () => {});
});
