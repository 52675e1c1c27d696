/**
 * The mcp-switchboard command: tools, call, bench and demo against real stdio servers, with the exit
 * codes and messages a shell user relies on.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";

const echoServer = fileURLToPath(new URL("../../examples/servers/echo-server.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcp-switchboard-cli-"));
const config = join(dir, "mcp.json");
writeFileSync(config, JSON.stringify({ mcpServers: { echo: { command: process.execPath, args: [echoServer] } } }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  expect(liveProcessCount()).toBe(0);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

describe("mcp-switchboard", () => {
  it("tools: lists namespaced tools with their descriptions, or JSON", async () => {
    const text = await run("tools", "--config", config);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^echo__echo\s+Returns its text\.$/m);
    expect(text.err).toMatch(/tools from 1 server/);
    const json = await run("tools", "-c", config, "--json");
    expect(JSON.parse(json.out).map((t: { name: string }) => t.name)).toContain("echo__add");
  });

  it("call: prints the result and progress; exit 1 for a tool error", async () => {
    const sum = await run("call", "echo__add", '{"a":2,"b":40}', "-c", config);
    expect(sum).toMatchObject({ code: 0, out: "42" });
    const progress = await run("call", "echo__progress", '{"steps":2,"delayMs":1}', "-c", config);
    expect(progress.err).toMatch(/progress 1\/2[\s\S]*progress 2\/2/);
    const failed = await run("call", "echo__fail", "-c", config);
    expect(failed.code).toBe(1);
    expect(failed.out).toMatch(/always fails/);
  });

  it("--timeout bounds each call", async () => {
    const started = Date.now();
    const slow = await run("call", "echo__slow", '{"ms":5000}', "--timeout", "300", "-c", config);
    expect(slow.code).toBe(1);
    expect(slow.err).toMatch(/RequestTimeoutError/);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it("says clearly what is wrong with the command line or the config", async () => {
    expect((await run("call", "echo__add", "{nope", "-c", config)).err).toMatch(/The arguments for echo__add are not valid JSON/);
    expect((await run("call", "-c", config)).err).toMatch(/call needs a tool name/);
    expect((await run("bench", "echo__echo", "-n", "zero", "-c", config)).err).toMatch(/--requests takes a whole number above 0, got "zero"/);
    expect((await run("tools", "-c", join(dir, "missing.json"))).err).toMatch(/missing\.json does not exist/);
    const unknown = await run("frobnicate");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/Unknown command "frobnicate"/);
    const noTool = await run("call", "echo__nothing", "-c", config);
    expect(noTool.code).toBe(1);
    expect(noTool.out + noTool.err).toMatch(/Tool nothing not found/);
    const noConfig = await run("tools"); // the repository has no mcp.json
    expect(noConfig.code).toBe(1);
    expect(noConfig.err).toMatch(/No mcp\.json in .*: pass --config FILE, or try `mcp-switchboard demo`/);
  });

  it("bench: reports req/s, latency and failures", async () => {
    const bench = await run("bench", "echo__echo", '{"text":"x"}', "-n", "200", "--concurrency", "8", "-c", config);
    expect(bench.code).toBe(0);
    expect(bench.out).toMatch(/echo__echo: 200 calls at concurrency 8/);
    expect(bench.out).toMatch(/req\/s, p50 [\d.]+ ms, p99 [\d.]+ ms, 0 failed/);
  });

  it("runs as a program: --version, --help, and a demo that needs no configuration", () => {
    const cli = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const exec = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", cli, ...args], { encoding: "utf8", cwd: root, timeout: 20_000 });
    expect(exec("--version").stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(exec("--help").stdout).toMatch(/Usage: mcp-switchboard <command>/);
    expect(exec().status).toBe(2);
    const demo = exec("demo", "-n", "100");
    expect(demo.status).toBe(0);
    expect(demo.stdout).toMatch(/demo__progress/);
    expect(demo.stdout).toMatch(/^42$/m);
    expect(demo.stderr).toMatch(/progress 3\/3/);
  });
});
