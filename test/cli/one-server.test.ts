/**
 * `call` and `bench` start only the server they need (src/cli/open-board.ts): from a config whose other
 * servers cannot start (a missing program, a server that never answers), `call echo__echo` and `bench`
 * exit 0 without waiting for them or reporting them; `tools` still starts every server. A server's
 * fallbacks are started with it.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { echoServer, run } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-switchboard-one-server-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const once = { maxRestarts: 0 };
const echo = { command: process.execPath, args: [echoServer], restart: once };
const path = join(dir, "mcp.json");
writeFileSync(
  path,
  JSON.stringify({
    mcpServers: {
      missing: { command: "mcp-switchboard-no-such-program", restart: once },
      // Never answers initialize: waiting for it would take the whole start deadline.
      silent: { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], restart: once, startTimeoutMs: 15_000 },
      echo,
      primary: { command: "mcp-switchboard-no-such-program", restart: once, fallbacks: ["backup"] },
      backup: echo,
    },
  }),
);

describe("call and bench start only the server they need", () => {
  it("call: exit 0 with the answer, and no other server started or reported", async () => {
    const started = Date.now();
    const result = await run(["call", "echo__echo", '{"text":"only me"}', "-c", path]);
    expect(result).toMatchObject({ code: 0, out: "only me" });
    expect(result.err).not.toMatch(/missing|silent/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("bench: exit 0 over the one server", async () => {
    const result = await run(["bench", "echo__echo", '{"text":"x"}', "--requests", "5", "--concurrency", "2", "--json", "-c", path]);
    expect(result.code).toBe(0);
    expect(result.err).not.toMatch(/missing|silent/);
  });

  it("a server's fallbacks start with it; tools still starts every server", async () => {
    const fallback = await run(["call", "primary__echo", '{"text":"via backup"}', "-c", path]);
    expect(fallback.out).toBe("via backup");
    expect(fallback.err).toMatch(/server "primary" is down/);
    expect(fallback.err).not.toMatch(/missing|silent/);
    const tools = await run(["tools", "--start-timeout", "1000", "-c", path]);
    expect(tools.code).toBe(3);
    expect(tools.err).toMatch(/server "missing" is down/);
  });
});
