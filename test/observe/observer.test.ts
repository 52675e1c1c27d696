/**
 * The observer without a browser: what the page is sent (the supervision tree, stats, recent calls,
 * lifecycle), how fast a kill -9 reaches an open page, the port and host rules, and closing.
 */
import { request } from "node:http";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { observe, type Observer } from "../../src/index.js";
import { ConfigError } from "../../src/jsonrpc/errors.js";
import { boardsAfterEach, echoServer, fastRestart, node, pidOf } from "../switchboard/board-helpers.js";
import { waitFor } from "../helpers/processes.js";
import { EventStream, text } from "./observe-helpers.js";

const board = boardsAfterEach();
let observers: Observer[] = [];
let streams: EventStream[] = [];
afterEach(async () => {
  await Promise.all(streams.map((s) => s.close()));
  await Promise.all(observers.map((o) => o.close()));
  streams = [];
  observers = [];
});

async function watched(b: Parameters<typeof observe>[0], options: Parameters<typeof observe>[1] = {}): Promise<Observer> {
  const observer = await observe(b, { port: 0, ...options });
  observers.push(observer);
  return observer;
}
function stream(observer: Observer): EventStream {
  const opened = new EventStream(observer.url);
  streams.push(opened);
  return opened;
}

describe("observe(board)", () => {
  it("serves the page and the supervision tree on 127.0.0.1: state, era, transport, pid", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer] }, off: { command: node, args: [echoServer], disabled: true } } });
    await b.start();
    const observer = await watched(b);
    expect(observer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await text(observer.url, "/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.body).toContain('new EventSource("events")');
    const snapshot = observer.snapshot();
    const echo = snapshot.servers.find((s) => s.name === "echo")!;
    expect(echo).toMatchObject({ state: "up", restarts: 0, circuit: "closed", inFlight: 0 });
    expect(echo.session).toMatchObject({ transport: "stdio", era: "legacy", pid: pidOf(b, "echo"), live: true, server: "echo-server 1.0.0" });
    expect(snapshot.servers.find((s) => s.name === "off")).toMatchObject({ state: "disabled", session: undefined });
    expect((await text(observer.url, "/nope")).status).toBe(404);
  });

  it("counts calls per server and keeps the recent ones: outcome and duration, no arguments by default", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer] } } });
    await b.start();
    const observer = await watched(b);
    await Promise.all(Array.from({ length: 20 }, (_, i) => b.callTool("echo__echo", { text: `hello ${i}` })));
    await b.callTool("echo__fail");
    await expect(b.callTool("echo__slow", { ms: 5000 }, { timeoutMs: 50 })).rejects.toThrow();
    await expect(b.callTool("nobody__x")).rejects.toThrow(/No tool named nobody__x/);
    const snapshot = observer.snapshot();
    const echo = snapshot.servers.find((s) => s.name === "echo")!;
    expect(echo.stats.total).toBe(22);
    expect(echo.stats.errors).toBe(2);
    expect(snapshot.calls).toHaveLength(23);
    expect(snapshot.calls[0]).toMatchObject({ name: "echo__echo", server: "echo", outcome: "ok", args: undefined });
    expect(snapshot.calls[0].ms).toBeGreaterThan(0);
    expect(snapshot.calls[20]).toMatchObject({ name: "echo__fail", outcome: "error" });
    expect(snapshot.calls[21]).toMatchObject({ name: "echo__slow", server: "echo", outcome: "failed" });
    expect(snapshot.calls[21].error).toMatch(/timed out|timeout/i);
    expect(snapshot.calls[22]).toMatchObject({ name: "nobody__x", server: undefined, outcome: "failed" });
    expect(JSON.stringify(snapshot)).not.toContain("hello 3");
  });

  it("shows the arguments with captureToolContent, and keeps the last 50 calls only", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer] } } });
    await b.start();
    const observer = await watched(b, { captureToolContent: true });
    for (let i = 0; i < 60; i++) await b.callTool("echo__echo", { text: `call ${i}` });
    const calls = observer.snapshot().calls;
    expect(calls).toHaveLength(50);
    expect(calls[0].args).toBe('{"text":"call 10"}');
    expect(calls[49].args).toBe('{"text":"call 59"}');
  });

  it("fills the sparklines second by second: calls/s, p50, p99", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer] } } });
    await b.start();
    const observer = await watched(b);
    // The observer files calls by the monotonic clock's wall time, which drifts from Date.now().
    const wall = () => performance.timeOrigin + performance.now();
    const startedSecond = Math.floor(wall() / 1000);
    let calls = 0;
    while (Math.floor(wall() / 1000) === startedSecond) {
      await b.callTool("echo__echo", { text: "x" });
      calls++;
    }
    // Calls in a second that is over are in the series; the current second is not shown yet. The
    // observer reads its clock once per burst, so on a loaded machine it may still be in the calls'
    // second for a moment: wait (bounded) until every call is in the series, counted once.
    const stats = () => observer.snapshot().servers[0].stats;
    const total = () => stats().rate.reduce<number>((sum, rate) => sum + (rate ?? 0), 0);
    await waitFor(() => total() === calls, 5_000);
    const series = stats();
    expect(series.rate).toHaveLength(60);
    const last = series.rate.findLastIndex((rate) => (rate ?? 0) > 0);
    expect(series.rate[last]).toBeLessThanOrEqual(calls);
    expect(series.p50[last]).toBeGreaterThan(0);
    expect(series.p99[last]!).toBeGreaterThanOrEqual(series.p50[last]!);
    expect(series.p50[0]).toBeNull();
  });

  it("pushes a kill -9 of a stdio server to an open page within 3 s: exit reason, restart, new pid", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer], restart: fastRestart } } });
    await b.start();
    const observer = await watched(b);
    const page = stream(observer);
    const first = await page.until((s) => s.servers[0]?.state === "up");
    const pid = first.servers[0].session!.pid!;
    expect(pid).toBe(pidOf(b, "echo"));
    const killedAt = Date.now();
    process.kill(pid, "SIGKILL");
    const exited = await page.until((s) => s.servers[0].lastExit !== undefined, 3000);
    expect(Date.now() - killedAt).toBeLessThan(3000);
    expect(exited.lifecycle.map((e) => e.event)).toContain("exit");
    const back = await page.until((s) => s.servers[0].state === "up" && s.servers[0].restarts === 1 && s.servers[0].session?.pid !== pid, 5000);
    expect(back.lifecycle.map((e) => e.event)).toEqual(expect.arrayContaining(["exit", "restart", "up"]));
    expect(observer.pages).toBe(1);
  });

  it("shows a breaker that opened and a server that is down, with the reason", async () => {
    const b = board({
      servers: {
        echo: { command: node, args: [echoServer], restart: { ...fastRestart, maxRestarts: 1 }, circuit: { failureThreshold: 2, cooldownMs: 60_000 } },
      },
    });
    await b.start();
    const observer = await watched(b);
    const page = stream(observer);
    await page.until((s) => s.servers[0]?.state === "up");
    await b.callTool("echo__crash").catch(() => {});
    await b.callTool("echo__crash").catch(() => {});
    await waitFor(() => b.status().echo.state === "down" || b.status().echo.circuit === "open", 10_000);
    const seen = await page.until((s) => s.servers[0].state === "down" || s.servers[0].circuit === "open", 3000);
    const server = seen.servers[0];
    if (server.state === "down") expect(server.downReason).toBeTruthy();
    else expect(seen.lifecycle.some((e) => e.event === "circuit")).toBe(true);
  });
});

describe("the address", () => {
  let blocker: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (blocker ? blocker.close(resolve) : resolve(undefined)));
    blocker = undefined;
  });

  it("a port in use is a ConfigError naming the port, and the board is not tapped", async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const b = board({ servers: { echo: { command: node, args: [echoServer], disabled: true } } });
    const failure = await observe(b, { port }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as Error).message).toContain(`port ${port} on 127.0.0.1 is in use`);
    expect(b.callTap).toBeUndefined();
  });

  it("a bad port or host is a ConfigError naming the field", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer], disabled: true } } });
    await expect(observe(b, { port: 70_000 })).rejects.toThrow(/field "port".*70000/);
    await expect(observe(b, { port: 1.5 })).rejects.toThrow(/field "port"/);
    await expect(observe(b, { host: "" })).rejects.toThrow(/field "host"/);
  });

  it("another host warns that the page is reachable from elsewhere", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => warnings.push(`${warning.code}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const b = board({ servers: { echo: { command: node, args: [echoServer], disabled: true } } });
      // 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning comes, then the bind fails, naming the port.
      await expect(observe(b, { port: 0, host: "192.0.2.1" })).rejects.toThrow(/port 0 on 192\.0\.2\.1 cannot be listened on/);
      await waitFor(() => warnings.length > 0, 2000);
      expect(warnings[0]).toMatch(/^MCP_SWITCHBOARD_OBSERVER_HOST: The observer listens on 192\.0\.2\.1/);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("answers only requests addressed to its loopback name (no DNS rebinding)", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer], disabled: true } } });
    const observer = await watched(b);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port: observer.port, path: "/snapshot.json", headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
    expect(await status(`evil.example:${observer.port}`)).toBe(421);
    expect(await status(`127.0.0.1:${observer.port}`)).toBe(200);
    expect(await status(`localhost:${observer.port}`)).toBe(200);
  });
});

describe("board.observe and closing", () => {
  it("board.observe() is the same observer through the package entry; close() frees the port and untaps the board", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer] } } });
    await b.start();
    const observer = await b.observe({ port: 0 });
    expect(b.callTap).toBeDefined();
    // Typed with the observer's own methods (no cast): the snapshot a page is sent.
    expect(observer.snapshot().servers.map((s) => s.name)).toEqual(["echo"]);
    await expect(b.observe({ port: 0 })).rejects.toThrow(/already observed/);
    const page = new EventStream(observer.url);
    await page.until(() => true);
    await observer.close();
    await page.close();
    expect(b.callTap).toBeUndefined();
    await expect(fetch(observer.url)).rejects.toThrow();
    // The port is free again.
    const again = await watched(b, { port: observer.port });
    expect(again.port).toBe(observer.port);
  });
});
