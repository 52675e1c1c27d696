/**
 * A server's start has its own deadline, apart from the calls' timeout, and `start()` is
 * never held by one server that hangs or is not an MCP server at all. Each case is a real peer: a
 * `fastmcp` server slow to initialize over HTTP, a listener that never answers, a program that writes
 * only lines that are not JSON.
 */
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { startSilentListener, type SilentListener } from "../fixtures/silent-http.js";
import { startSlowFastMcp, type SlowFastMcp } from "../fixtures/slow-fastmcp.js";
import { boardsAfterEach, echoServer, fastRestart, node } from "./board-helpers.js";
import { waitFor } from "../helpers/processes.js";

const garbageServer = fileURLToPath(new URL("../fixtures/garbage-server.mjs", import.meta.url));
const board = boardsAfterEach();
const peers: Array<SlowFastMcp | SilentListener> = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

describe("start deadlines", () => {
  it("a server slower to initialize than requestTimeoutMs still comes up: the handshake has the start deadline", async () => {
    const slow = await startSlowFastMcp(600);
    peers.push(slow);
    // Calls may take 300 ms; the probe and initialize take 600 ms each. Before the fix the handshake
    // had the call timeout and the server never came up.
    const b = board({ servers: { slow: { url: slow.url, requestTimeoutMs: 300, restart: { ...fastRestart, maxRestarts: 0 } } } });
    await b.start();
    expect(b.status().slow).toMatchObject({ state: "up", lastError: undefined });
    expect((await b.listTools()).map((tool) => tool.name)).toEqual(["slow__add"]);
  });

  it("the start deadline still bounds a slow handshake", async () => {
    const slow = await startSlowFastMcp(2_000);
    peers.push(slow);
    const b = board({ servers: { slow: { url: slow.url, startTimeoutMs: 300, restart: { ...fastRestart, maxRestarts: 0 } } } });
    await b.start();
    expect(b.status().slow.state).not.toBe("up");
  });

  it("a silent HTTP server neither holds start() nor the other servers, and the message says what to check", async () => {
    const silent = await startSilentListener();
    peers.push(silent);
    // The default start deadline (30 s) is far beyond the test's timeout: start() must end at the failed
    // start (the probe gives up on silence after probeTimeoutMs), not at the deadline.
    const b = board({
      client: { probeTimeoutMs: 300 },
      servers: {
        silent: { url: silent.url, restart: { ...fastRestart, backoff: { ...fastRestart.backoff, initialMs: 5_000, maxMs: 5_000 } } },
        echo: { command: node, args: [echoServer] },
      },
    });
    await b.start();
    const status = b.status();
    expect(status.echo.state).toBe("up");
    expect(status.silent.state).toBe("restarting");
    expect(status.silent.lastError).toBe(`no answer from ${silent.url} within 300 ms: is it an MCP server? Check the URL and that it is running`);
  });

  it("the silence message gives seconds from 1 s up", async () => {
    const silent = await startSilentListener();
    peers.push(silent);
    const b = board({ client: { probeTimeoutMs: 1_500 }, servers: { silent: { url: silent.url, restart: { ...fastRestart, maxRestarts: 0 } } } });
    await b.start();
    expect(b.status().silent.lastError).toMatch(
      /^no answer from http:\/\/127\.0\.0\.1:\d+\/mcp within 1\.5 s: is it an MCP server\? Check the URL and that it is running$/,
    );
  });

  it("a stdio program that writes only lines that are not JSON fails its start at once, not at the deadline", async () => {
    const b = board({ servers: { garbage: { command: node, args: [garbageServer], restart: { ...fastRestart, maxRestarts: 0 } } } });
    await b.start();
    const status = b.status().garbage;
    expect(status.state).not.toBe("up");
    expect(status.lastError).toMatch(
      /^MCP server ".*garbage-server\.mjs" wrote 100 lines that are not JSON-RPC and no message \(the first: "garbage line 0"\): is it an MCP server\? Check "command" and "args"; stopped it$/,
    );
  });

  it("restart events carry whole milliseconds", async () => {
    const b = board({
      servers: {
        crash: {
          command: node,
          args: ["-e", "process.exit(3)"],
          restart: { maxRestarts: 3, withinMs: 10_000, backoff: { initialMs: 10, maxMs: 50, factor: 1.7, jitter: 0.9 } },
        },
      },
    });
    const delays: number[] = [];
    b.on("restart", (event) => delays.push(event.delayMs));
    await b.start();
    await waitFor(() => b.status().crash.state === "down", 10_000);
    expect(delays).toHaveLength(3);
    for (const delay of delays) expect(Number.isInteger(delay)).toBe(true);
  });
});
