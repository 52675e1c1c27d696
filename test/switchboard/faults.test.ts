/**
 * Supervision faults with real peers: start failures no restart can fix go down at once, a crash
 * loop backs off (docs/guide/switchboard.md, "Limits and faults"), a hung handshake is bounded, and the board's edges (a call
 * storm against a down server, a stop during a backoff, a thousand queued calls when the server dies).
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Switchboard } from "../../src/switchboard/switchboard.js";
import { ConfigError, TransportError } from "../../src/jsonrpc/errors.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import { startScriptedHttp, type ScriptedHttp } from "../fixtures/scripted-http.js";
import { waitFor } from "../helpers/processes.js";
import { boardsAfterEach, echoServer, fastRestart, node, pidOf } from "./board-helpers.js";

const board = boardsAfterEach();
let https: ScriptedHttp[] = [];
afterEach(async () => {
  await Promise.all(https.map((h) => h.close()));
  https = [];
});

const dir = mkdtempSync(join(tmpdir(), "switchboard-faults-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Counts what a board says about its servers. */
function record(b: Switchboard) {
  const seen = { restarts: [] as number[], downs: [] as string[], ups: 0 };
  b.on("restart", (e) => seen.restarts.push(e.delayMs));
  b.on("down", (e) => seen.downs.push(e.reason));
  b.on("up", () => seen.ups++);
  return seen;
}

describe("start failures no restart can fix go down at once", () => {
  it("a command that does not exist (ENOENT): down with the reason, no restart, calls fail at once", async () => {
    const b = board({ servers: { tools: { command: "node-x-does-not-exist", restart: fastRestart } } });
    const seen = record(b);
    await b.start();
    const status = b.status().tools;
    expect(status.state).toBe("down");
    expect(status.downReason).toBe('command not found: node-x-does-not-exist (ENOENT); check the "command" field, PATH and "cwd"');
    expect(status.lastError).toMatch(/Cannot start MCP server "node-x-does-not-exist": command not found \(ENOENT\)/);
    expect(seen).toEqual({ restarts: [], downs: [status.downReason], ups: 0 });
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.restarts).toEqual([]);
    // A storm of calls against it fails fast: nothing waits, nothing queues.
    const outcomes = await Promise.all(Array.from({ length: 1000 }, () => b.callTool("tools__echo", { text: "x" }).catch((e: unknown) => e)));
    for (const outcome of outcomes) {
      expect(outcome).toBeInstanceOf(TransportError);
      expect((outcome as TransportError).delivered).toBe(false);
      expect((outcome as Error).message).toMatch(/server "tools" is down: command not found/);
    }
    expect(b.status().tools).toMatchObject({ inFlight: 0, queued: 0 });
    // One after another too: the down reason stays the answer (the circuit breaker is not fed by it).
    for (let i = 0; i < 20; i++) await expect(b.callTool("tools__echo", { text: "x" })).rejects.toThrow(/server "tools" is down: command not found/);
    expect(b.status().tools.circuit).toBe("closed");
  });

  it("a command that may not be run (EACCES) goes down at once too", async () => {
    const script = join(dir, "not-executable.sh");
    writeFileSync(script, "#!/bin/sh\necho hi\n");
    chmodSync(script, 0o644);
    const b = board({ servers: { tools: { command: script, restart: fastRestart } } });
    const seen = record(b);
    await b.start();
    expect(b.status().tools.downReason).toBe(`permission denied running ${script} (EACCES); make it executable or fix the "command" field`);
    expect(seen.restarts).toEqual([]);
  });

  it("a fallback still takes the calls of a primary whose command is missing", async () => {
    const b = board({
      servers: {
        primary: { command: "node-x-does-not-exist", fallbacks: ["backup"], restart: fastRestart },
        backup: { command: node, args: [echoServer] },
      },
    });
    await b.start();
    expect(b.status().primary.state).toBe("down");
    expect((await b.callTool("primary__echo", { text: "elsewhere" })).content).toEqual([{ type: "text", text: "elsewhere" }]);
  });

  it("a pinned protocol the client does not speak: the config check refuses it; pinned in client options, the server goes down at once", async () => {
    expect(() => new Switchboard({ servers: { s: { command: node, args: [echoServer], protocol: "2027-01-01" } } })).toThrow(ConfigError);
    const b = board({ servers: { s: { command: node, args: [echoServer], client: { protocol: "2027-01-01" }, restart: fastRestart } } });
    const seen = record(b);
    await b.start();
    expect(b.status().s.downReason).toMatch(/^configuration error: .*"2027-01-01" is not a version this client speaks.*; fix the server's entry$/);
    expect(seen.restarts).toEqual([]);
  });

  it.each([
    [401, /^authorization refused \(HTTP 401 from http:\/\/127\.0\.0\.1:\d+\/mcp\); check the token or "headers", or log in again$/],
    [403, /^authorization refused \(HTTP 403 from http:\/\/127\.0\.0\.1:\d+\/mcp\); check the token or "headers", or log in again$/],
    [404, /^endpoint not found \(HTTP 404 from http:\/\/127\.0\.0\.1:\d+\/mcp\); check the "url" field$/],
  ])("HTTP %i at start: down at once, the reason without the URL's query", async (status, reason) => {
    const server = await startScriptedHttp(() => ({ status, text: "no" }));
    https.push(server);
    const b = board({ servers: { remote: { url: `${server.url}?key=secret-value`, restart: fastRestart } } });
    const seen = record(b);
    await b.start();
    expect(b.status().remote.state).toBe("down");
    expect(b.status().remote.downReason).toMatch(reason);
    expect(seen.restarts).toEqual([]);
    expect(seen.downs.join("\n")).not.toMatch(/secret-value/);
  });

  it("HTTP 503 at start may pass: it is restarted within the budget", async () => {
    const server = await startScriptedHttp(() => ({ status: 503, text: "busy" }));
    https.push(server);
    const b = board({ servers: { remote: { url: server.url, restart: { ...fastRestart, maxRestarts: 2 } } } });
    const seen = record(b);
    await b.start();
    await waitFor(() => b.status().remote.state === "down", 10_000);
    expect(seen.restarts).toHaveLength(2);
    expect(seen.downs).toEqual(["restarted 2 times within 10000 ms (limit: 2)"]);
  });
});

describe("restart pacing and edges", () => {
  it("a server that crashes as soon as it is up is restarted after growing delays (initialMs x factor, capped)", async () => {
    const b = board({
      servers: {
        flappy: {
          command: node,
          args: [echoServer],
          restart: { maxRestarts: 10, withinMs: 60_000, backoff: { initialMs: 20, maxMs: 80, factor: 2, jitter: 0 } },
        },
      },
    });
    const seen = record(b);
    b.on("up", () => process.kill(pidOf(b, "flappy"), "SIGKILL"));
    await b.start();
    await waitFor(() => seen.restarts.length >= 5, 15_000);
    expect(seen.restarts.slice(0, 5)).toEqual([20, 40, 80, 80, 80]);
  });

  it("a server that hangs in its handshake is bounded by startTimeoutMs and restarted, then down; no process is left", async () => {
    const b = board({
      startTimeoutMs: 300,
      servers: { mute: { command: node, args: ["-e", "setInterval(() => {}, 1000)"], restart: { ...fastRestart, maxRestarts: 2 } } },
    });
    const errors: string[] = [];
    b.on("restart", (e) => errors.push(e.error.message));
    const seen = record(b);
    await b.start();
    await waitFor(() => b.status().mute.state === "down", 10_000);
    expect(errors).toEqual([expect.stringMatching(/server "mute" did not finish starting within 300 ms \(startTimeoutMs\)/), expect.anything()]);
    expect(seen.downs).toEqual(["restarted 2 times within 10000 ms (limit: 2)"]);
    // The mute processes ignore their closed stdin and take a while to end; stop() waits for them.
    await b.stop();
    expect(liveProcessCount()).toBe(0);
  });

  it("stop() during a restart backoff ends it: no restart afterwards, no process, state stopped", async () => {
    const b = board({
      servers: {
        echo: { command: node, args: [echoServer], restart: { ...fastRestart, backoff: { ...fastRestart.backoff, initialMs: 10_000, maxMs: 10_000 } } },
      },
    });
    const seen = record(b);
    await b.start();
    process.kill(pidOf(b, "echo"), "SIGKILL");
    await waitFor(() => seen.restarts.length === 1);
    await b.stop();
    expect(b.status().echo.state).toBe("stopped");
    expect(liveProcessCount()).toBe(0);
    expect(seen.ups).toBe(1);
  });

  it("restart(name) of an unknown server is a ConfigError naming the known ones", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer] } } });
    await b.start();
    expect(() => b.restart("ecoh")).toThrow(ConfigError);
    expect(() => b.restart("ecoh")).toThrow(/unknown server "ecoh"; known: echo/);
  });

  it("1,000 queued calls all settle when the server dies under them", async () => {
    const b = board({ servers: { slow: { command: node, args: [echoServer], maxConcurrency: 4, maxQueue: 1000, restart: fastRestart } } });
    await b.start();
    const calls = Array.from({ length: 1004 }, () =>
      b.callTool("slow__slow", { ms: 5000 }).then(
        () => "ok",
        (e: unknown) => e,
      ),
    );
    await waitFor(() => b.status().slow.inFlight === 4 && b.status().slow.queued === 1000);
    process.kill(pidOf(b, "slow"), "SIGKILL");
    const outcomes = await Promise.all(calls);
    expect(outcomes.every((o) => o instanceof TransportError)).toBe(true);
    expect(b.status().slow).toMatchObject({ inFlight: 0, queued: 0 });
  });
});
