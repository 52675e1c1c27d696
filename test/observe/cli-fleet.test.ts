/**
 * Every command honours mcp.json's "fleet" section: `tools` and `observe` refuse a bad one naming the
 * config file, and `observe` joins the fleet, so its page shows the fleet's members (the issue: the
 * observe command built its board without the fleet, and the page showed none).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Snapshot } from "../../src/observe/index.js";
import { echoServer, run } from "../cli/run-cli.js";
import { waitFor } from "../helpers/processes.js";
import { INSTALL_REDIS, redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";

const cli = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcp-switchboard-cli-fleet-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const configWith = (name: string, fleet: unknown): string => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ fleet, mcpServers: { echo: { command: process.execPath, args: [echoServer] } } }));
  return path;
};

describe("the command line and mcp.json's fleet", () => {
  it("a bad fleet.redis: every command fails naming the config file and the field", async () => {
    const path = configWith("bad-fleet.json", { redis: "http://127.0.0.1:6379" });
    for (const argv of [
      ["tools", "--config", path],
      ["observe", path, "--port", "0"],
    ]) {
      const result = await run(argv);
      expect(result.code).toBe(1);
      expect(result.err).toContain(path);
      expect(result.err).toContain('field "fleet.redis"');
    }
  });
});

describe.skipIf(!redisAvailable)("observe with a fleet (real Redis)", () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("the page shows the fleet the config names, this process a live member of it", async () => {
    const path = configWith("fleet.json", { redis: redis.url, prefix: `cli-${Date.now()}` });
    const child = spawn(process.execPath, ["--import", "tsx", cli, "observe", path, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.resume();
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await waitFor(() => /http:\/\/127\.0\.0\.1:\d+\//.test(out), 20_000, 50);
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(out)![0];
      let snapshot: Snapshot | undefined;
      const poll = setInterval(() => {
        void fetch(`${url}snapshot.json`)
          .then((r) => r.json() as Promise<Snapshot>)
          .then(
            (s) => (snapshot = s),
            () => {},
          );
      }, 200);
      try {
        await waitFor(() => snapshot?.fleet?.members.some((m) => m.self && m.alive && m.servers !== undefined) === true, 20_000, 50);
      } finally {
        clearInterval(poll);
      }
      expect(snapshot!.fleet!.members.find((m) => m.self)!.servers?.map((s) => s.name)).toEqual(["echo"]);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await exited;
    }
  }, 40_000);
});

describe.skipIf(redisAvailable)("observe with a fleet", () => {
  it.skip(INSTALL_REDIS, () => {});
});
