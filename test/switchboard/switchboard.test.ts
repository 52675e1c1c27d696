import { describe, expect, it } from "vitest";
import type { SwitchboardInit } from "../../src/switchboard/switchboard.js";
import { RequestTimeoutError, TransportError } from "../../src/jsonrpc/errors.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { isAlive, waitFor } from "../helpers/processes.js";
import { boardsAfterEach, echoServer, fastRestart, node, pidOf } from "./board-helpers.js";

const board = boardsAfterEach();

describe("Switchboard", () => {
  it("starts 200 memory-pair servers, lists their tools namespaced, and stops cleanly", async () => {
    const servers: SwitchboardInit["servers"] = {};
    for (let i = 0; i < 200; i++) servers[`s${i}`] = { transport: () => new ScriptedServer().clientSide };
    const b = board({ servers });
    await b.start();
    expect(Object.values(b.status()).every((s) => s.state === "up")).toBe(true);
    const tools = await b.listTools();
    expect(tools).toHaveLength(200);
    expect(tools[0].name).toBe("s0__echo");
    expect(new Set(tools.map((t) => t.name)).size).toBe(200);
    const result = await b.callTool("s137__echo", { text: "hi" });
    expect(result.content[0]).toMatchObject({ text: "hi" });
    await b.stop();
    expect(Object.values(b.status()).every((s) => s.state === "stopped")).toBe(true);
  });

  it("applies only/except filters, description overrides and a custom separator", async () => {
    const b = board({
      separator: ".",
      servers: {
        math: { command: node, args: [echoServer], tools: { only: ["add", "echo", "pid"], except: ["pid"], descriptions: { add: "Adds." } } },
      },
    });
    await b.start();
    const tools = await b.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["math.add", "math.echo"]);
    expect(tools.find((t) => t.name === "math.add")?.description).toBe("Adds.");
    expect((await b.callTool("math.add", { a: 2, b: 3 })).content[0]).toMatchObject({ text: "5" });
    await expect(b.callTool("math.pid")).rejects.toThrow(/not exposed/);
    await expect(b.callTool("nope.add")).rejects.toThrow(/No tool named nope.add is available/);
  });

  it("kill -9 under 64 concurrent calls: all settle within 1 s with a retryable TransportError, then it restarts", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer], restart: fastRestart } } });
    const events: string[] = [];
    b.on("restart", (e) => events.push(`restart:${e.attempt}`));
    b.on("up", (e) => events.push(`up:${e.restarts}`));
    await b.start();
    const pid = pidOf(b, "echo");
    const calls = Array.from({ length: 64 }, () =>
      b.callTool("echo__slow", { ms: 5000 }).then(
        () => "ok",
        (e: unknown) => e,
      ),
    );
    await new Promise((r) => setTimeout(r, 200));
    const killedAt = Date.now();
    process.kill(pid, "SIGKILL");
    const outcomes = await Promise.all(calls);
    expect(Date.now() - killedAt).toBeLessThan(1000);
    for (const outcome of outcomes) {
      expect(outcome).toBeInstanceOf(TransportError);
      expect((outcome as TransportError).retryable).toBe(true);
      expect((outcome as TransportError).signal).toBe("SIGKILL");
    }
    await waitFor(() => b.status().echo.state === "up");
    expect(events).toEqual(["up:0", "restart:1", "up:1"]);
    expect(pidOf(b, "echo")).not.toBe(pid);
    expect((await b.callTool("echo__echo", { text: "back" })).content[0]).toMatchObject({ text: "back" });
    expect(isAlive(pid)).toBe(false);
  });

  it("a server that dies on every start goes down after the intensity limit and is not spawned again", async () => {
    const b = board({
      servers: {
        broken: { command: node, args: ["-e", "process.stderr.write('no config\\n'); process.exit(2)"], restart: { ...fastRestart, maxRestarts: 3 } },
      },
    });
    const downs: string[] = [];
    b.on("down", (e) => downs.push(e.reason));
    let restarts = 0;
    b.on("restart", () => restarts++);
    // start() is done at the first failed start; the supervisor goes on to the limit by itself.
    await b.start();
    expect(b.status().broken.state).toBe("restarting");
    await waitFor(() => b.status().broken.state === "down", 10_000);
    expect(restarts).toBe(3);
    expect(downs).toHaveLength(1);
    expect(downs[0]).toMatch(/restarted 3 times within 10000 ms/);
    expect(b.status().broken.lastError).toMatch(/exited with code 2[\s\S]*no config/);
    await new Promise((r) => setTimeout(r, 300));
    expect(restarts).toBe(3);
    expect(liveProcessCount()).toBe(0);
    await expect(b.callTool("broken__echo", { text: "x" })).rejects.toThrow(/down/);
  });

  it("with a fallback, read-only calls keep succeeding while the primary is killed (kill -9) and restarted, with no listTools() call", async () => {
    const b = board({
      servers: {
        primary: { command: node, args: [echoServer], fallbacks: ["backup"], restart: fastRestart },
        backup: { command: node, args: [echoServer] },
      },
    });
    const fallbacks: string[] = [];
    b.on("fallback", (e) => fallbacks.push(`${e.from}->${e.to}: ${e.reason}`));
    await b.start();
    // No listTools(): the board learns that idempotent_read is read-only by itself (src/switchboard/server-tools.ts).
    const failures: unknown[] = [];
    let successes = 0;
    let stop = false;
    const worker = async () => {
      while (!stop) {
        try {
          // Each worker always has a call in flight, so up to 16 are pending on the primary when it dies.
          await b.callTool("primary__idempotent_read");
          successes++;
        } catch (error) {
          failures.push(error);
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);
    await new Promise((r) => setTimeout(r, 150));
    process.kill(pidOf(b, "primary"), "SIGKILL");
    await waitFor(() => b.status().primary.restarts === 1 && b.status().primary.state === "up");
    await new Promise((r) => setTimeout(r, 100));
    stop = true;
    await Promise.all(workers);
    expect(failures).toEqual([]);
    expect(successes).toBeGreaterThan(50);
    expect(fallbacks.length).toBeGreaterThan(0);
    expect(fallbacks.every((f) => f.startsWith("primary->backup: "))).toBe(true);
    // The calls in flight on the primary moved because the tool is read-only, not because they were never sent.
    expect(fallbacks.some((f) => / after the request may have run; the call is idempotent$/.test(f))).toBe(true);
  });

  it("does not re-send a non-idempotent call that timed out after delivery", async () => {
    const b = board({
      servers: {
        primary: { command: node, args: [echoServer], fallbacks: ["backup"] },
        backup: { command: node, args: [echoServer] },
      },
    });
    await b.start();
    await b.listTools();
    const moved: string[] = [];
    b.on("fallback", (e) => moved.push(e.reason));
    const error = await b.callTool("primary__slow", { ms: 2000 }, { timeoutMs: 100 }).catch((e) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error.server).toBe("primary");
    expect(moved).toEqual([]);
    // The same call, declared idempotent by the caller, does move.
    const again = await b.callTool("primary__slow", { ms: 2000 }, { timeoutMs: 100, idempotent: true }).catch((e) => e);
    expect(again).toBeInstanceOf(RequestTimeoutError);
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatch(/idempotent/);
  });

  it("fails at once with an overload error when the per-server queue is full", async () => {
    const b = board({ servers: { slow: { command: node, args: [echoServer], maxConcurrency: 2, maxQueue: 2 } } });
    await b.start();
    const running = Array.from({ length: 4 }, () => b.callTool("slow__slow", { ms: 300 }));
    await expect(b.callTool("slow__slow", { ms: 1 })).rejects.toThrow(/2 calls running and 2 waiting; limit reached/);
    expect(b.status().slow).toMatchObject({ inFlight: 2, queued: 2 });
    await Promise.all(running);
  });

  it("runs before/after/error hooks, and a hook that throws never breaks the call", async () => {
    const seen: string[] = [];
    const b = board({
      servers: { echo: { command: node, args: [echoServer] } },
      hooks: {
        before: (c) => {
          seen.push(`before ${c.name}`);
          throw new Error("hook bug");
        },
        after: (c) => seen.push(`after ${c.server}`),
        error: (c, e) => seen.push(`error ${c.name} ${e.name}`),
      },
    });
    const hookErrors: string[] = [];
    b.on("error", (e) => hookErrors.push(e.error.message));
    await b.start();
    expect((await b.callTool("echo__echo", { text: "x" })).content[0]).toMatchObject({ text: "x" });
    await b.callTool("echo__slow", { ms: 500 }, { timeoutMs: 50 }).catch(() => {});
    expect(seen).toEqual(["before echo__echo", "after echo", "before echo__slow", "error echo__slow RequestTimeoutError"]);
    expect(hookErrors[0]).toMatch(/hook threw: hook bug/);
  });

  it("restart(name) brings a down server back", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer], restart: { ...fastRestart, maxRestarts: 0 } } } });
    await b.start();
    process.kill(pidOf(b, "echo"), "SIGKILL");
    await waitFor(() => b.status().echo.state === "down");
    expect(b.status().echo.downReason).toMatch(/restarts are disabled/);
    b.restart("echo");
    await waitFor(() => b.status().echo.state === "up");
    expect((await b.callTool("echo__echo", { text: "again" })).content[0]).toMatchObject({ text: "again" });
  });
});
