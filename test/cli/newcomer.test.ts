/**
 * A newcomer's first hour with the command line: the call timeout is not the start deadline,
 * exit codes tell a full answer from a partial one, other hosts' files are read, and relative `args`
 * follow the documented rule. Real servers throughout (a `fastmcp` server over HTTP, the echo server).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { startSilentListener, type SilentListener } from "../fixtures/silent-http.js";
import { startSlowFastMcp, type SlowFastMcp } from "../fixtures/slow-fastmcp.js";
import { echoServer, run } from "./run-cli.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-switchboard-newcomer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const peers: Array<SlowFastMcp | SilentListener> = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

let files = 0;
/** An mcp.json with this content in the temp dir; no restarts, so a broken server is reported at once. */
function config(content: object, name = `mcp-${files++}.json`): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}
const once = { maxRestarts: 0 };
const echo = { command: process.execPath, args: [echoServer], restart: once };

describe("the start deadline is not the call timeout", () => {
  it("tools --timeout shorter than a server's initialize: the server is up and listed, exit 0", async () => {
    const slow = await startSlowFastMcp(600);
    peers.push(slow);
    const result = await run(["tools", "--timeout", "300", "-c", config({ mcpServers: { slow: { url: slow.url, restart: once } } })]);
    expect(result.err).not.toMatch(/is (down|restarting)/);
    expect(result).toMatchObject({ code: 0, out: expect.stringMatching(/^slow__add\s+Adds two numbers\.$/) });
  });

  it("--start-timeout bounds each server's start, and the exit code says a server is missing", async () => {
    const silent = await startSilentListener();
    peers.push(silent);
    // Only the silent server: a second one would have to start within the same short deadline on a loaded machine.
    const path = config({ mcpServers: { silent: { url: silent.url, restart: once } } });
    const result = await run(["tools", "--start-timeout", "1000", "-c", path]);
    expect(result.code).toBe(3);
    expect(result.err).toMatch(/server "silent" is (down|restarting): .*(did not finish starting within 1000 ms|no answer from)/);
    expect(result.err).toMatch(/0 tools from 1 server\(s\) \(1 not up\)$/);
    expect(await run(["tools", "--start-timeout", "0", "-c", path])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/--start-timeout takes a whole number above 0/),
    });
  });

  it("a stdio program that prints to stdout and is not up: its failure names the line it wrote", async () => {
    // A program given the wrong arguments prints its usage on stdout and exits: two lines, far below
    // the 100 that stop a server at once. The same hint follows a banner printed before a hang, which
    // fails at the start deadline instead (timed, so not used here: a loaded machine may not even have
    // started node by then).
    const usage = "console.log('Usage: server [--port N]'); console.log('  --port  the port'); process.exitCode = 1";
    const path = config({ mcpServers: { chatty: { command: process.execPath, args: ["-e", usage], restart: once } } });
    const result = await run(["tools", "-c", path]);
    expect(result.code).toBe(3);
    expect(result.err).toContain(
      'it wrote lines on stdout that are not JSON-RPC (the first: "Usage: server [--port N]"): a stdio MCP server must write only JSON-RPC messages to stdout and its logs to stderr',
    );
  });
});

describe("exit codes", () => {
  it("a command with spaces: down at once with a hint to split it, exit 3; --allow-down makes it 0", async () => {
    const path = config({ mcpServers: { memory: { command: "npx -y @modelcontextprotocol/server-memory" } } });
    const result = await run(["tools", "-c", path]);
    expect(result.code).toBe(3);
    expect(result.err).toContain(
      'server "memory" is down: command not found: npx -y @modelcontextprotocol/server-memory (ENOENT); check the "command" field, PATH and "cwd"; put only the program in "command" and the rest in "args": "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]',
    );
    expect(result.err).toMatch(/0 tools from 1 server\(s\) \(1 not up\)$/);
    expect(await run(["tools", "--allow-down", "-c", path])).toMatchObject({ code: 0, err: expect.stringMatching(/is down/) });
  });

  it("a refused URL is a server not up (3); a failed call still says 1; all up is 0", async () => {
    const silent = await startSilentListener();
    const url = silent.url;
    await silent.close(); // nothing listens there now: refused
    const path = config({ mcpServers: { gone: { url, restart: once }, echo } });
    expect(await run(["tools", "-c", path])).toMatchObject({ code: 3, err: expect.stringMatching(/server "gone" is (down|restarting)/) });
    // call starts only the server it needs (test/cli/one-server.test.ts): "gone" is not started, nor reported.
    expect(await run(["call", "echo__echo", '{"text":"hi"}', "-c", path])).toMatchObject({ code: 0, out: "hi", err: "" });
    expect(await run(["call", "echo__fail", "-c", path])).toMatchObject({ code: 1 });
    expect(await run(["call", "echo__echo", '{"text":"hi"}', "--allow-down", "-c", path])).toMatchObject({ code: 0, out: "hi" });
    expect(await run(["tools", "-c", config({ mcpServers: { echo } })])).toMatchObject({ code: 0 });
  });

  it("--help says what each exit code means", async () => {
    const help = await run(["--help"]);
    expect(help.out).toMatch(
      /Exit codes:\n {2}0 {2}success, and every enabled server is up\n {2}1 .*\n {2}2 {2}a wrong command line\n {2}3 {2}the command ran, but a server is not up/,
    );
    expect(help.out).toMatch(/--allow-down/);
    expect(help.out).toMatch(/--start-timeout <ms>/);
  });
});

describe("files of other hosts", () => {
  it("a Claude Desktop file: its own keys are ignored with one warning on stderr", async () => {
    const path = config({ globalShortcut: "Ctrl+Space", mcpServers: { echo } }, "claude_desktop_config.json");
    const result = await run(["tools", "-c", path]);
    expect(result.code).toBe(0);
    expect(result.err.split("\n").filter((line) => line.startsWith("warning:"))).toEqual([
      `warning: ${path}: ignoring top-level key "globalShortcut" (another host's settings); only the servers are read`,
    ]);
  });
});

describe("relative paths in args", () => {
  // A server script next to the config file, named relatively in args.
  const script = join(dir, "relative-server.mjs");
  writeFileSync(script, `import ${JSON.stringify(pathToFileURL(echoServer).href)};\n`);

  it("args are passed as written: a relative one resolves against cwd, which is relative to the config file", async () => {
    const withCwd = config({ mcpServers: { rel: { command: process.execPath, args: ["./relative-server.mjs"], cwd: ".", restart: once } } });
    expect(await run(["tools", "-c", withCwd])).toMatchObject({ code: 0, out: expect.stringMatching(/^rel__echo/m) });
    expect(readFileSync(withCwd, "utf8")).toContain('"./relative-server.mjs"');
  });

  it("without cwd, a relative arg resolves against the directory the command runs in, not the config file's", async () => {
    expect(process.cwd()).not.toBe(dir);
    const withoutCwd = config({ mcpServers: { rel: { command: process.execPath, args: ["./relative-server.mjs"], restart: once } } });
    const result = await run(["tools", "-c", withoutCwd]);
    expect(result.code).toBe(3);
    expect(result.err).toMatch(/Cannot find module .*relative-server\.mjs/);
  });
});
