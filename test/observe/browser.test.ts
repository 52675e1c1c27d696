/**
 * The observer page in a real browser: Debian's headless Chromium driven by puppeteer-core. The page
 * shows the servers and reacts to a kill -9 of a stdio server within 3 s; a screenshot is kept in
 * test-artifacts/observer.png. With a fleet, the page shows every member process with its servers, and
 * one killed -9 as gone (test-artifacts/observer-fleet.png). Skipped, with how to install it, when
 * Chromium (or Redis, for the fleet) is not there.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser } from "puppeteer-core";
import { afterAll, describe, expect, it } from "vitest";
import { observe, runAgent, type AgentModel } from "../../src/index.js";
import { boardsAfterEach, echoServer, fastRestart, node, pidOf } from "../switchboard/board-helpers.js";
import { redisFleet } from "../../src/fleet/index.js";
import { LEASE_MS } from "../../src/fleet/link.js";
import { redisAvailable, startRedis, type TestRedis } from "../helpers/redis.js";
import { startWorker, type Worker } from "../helpers/workers.js";
import { startCountingServer } from "../fixtures/fleet/counting-server.js";
import { waitFor } from "../helpers/processes.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
if (!available) console.warn(`Skipping the observer's browser test: no ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const artifacts = fileURLToPath(new URL("../../test-artifacts/", import.meta.url));

const board = boardsAfterEach();
const profile = mkdtempSync(join(tmpdir(), "mcp-switchboard-chromium-"));
afterAll(() => rmSync(profile, { recursive: true, force: true }));

const model: AgentModel = async (request) =>
  request.messages.some((m) => m.role === "tool")
    ? { message: { role: "assistant", content: [{ type: "text", text: "Echo answered: hello" }] } }
    : { message: { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "echo__echo", input: { text: "hello" } }] } };

async function launch(): Promise<Browser> {
  const { default: puppeteer } = await import("puppeteer-core");
  return puppeteer.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
    ],
  });
}

describe.skipIf(!available)("the observer page in Chromium", () => {
  it("shows the servers, and a kill -9 of a stdio server within 3 s", async () => {
    const b = board({ servers: { echo: { command: node, args: [echoServer], restart: fastRestart }, spare: { command: node, args: [echoServer] } } });
    await b.start();
    const observer = await observe(b, { port: 0, captureToolContent: true });
    const browser = await launch();
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1200, height: 1000 });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      await page.goto(observer.url);
      await page.waitForSelector('[data-server="echo"][data-state="up"]', { timeout: 10_000 });
      await page.waitForSelector('[data-server="spare"][data-state="up"]', { timeout: 10_000 });
      expect(await page.$eval("#live", (el) => el.textContent)).toContain("live");
      const pid = pidOf(b, "echo");
      expect(await page.$eval('[data-server="echo"]', (el) => el.textContent)).toContain(`pid ${pid}`);

      for (let i = 0; i < 30; i++) await b.callTool("echo__echo", { text: `hi ${i}` });
      await runAgent({ model, host: b, messages: "Say hello through echo", events: observer.agentEvents("greeter") });
      await page.waitForSelector('[data-run="1"]', { timeout: 5000 });

      const killedAt = Date.now();
      process.kill(pid, "SIGKILL");
      // A string, evaluated in the page (the test's tsconfig has no DOM types).
      await page.waitForFunction(
        `(() => { const el = document.querySelector('[data-server="echo"]'); return el !== null && (el.dataset.state !== "up" || el.dataset.restarts !== "0"); })()`,
        { timeout: 3000, polling: 50 },
      );
      expect(Date.now() - killedAt).toBeLessThan(3000);
      await page.waitForSelector('[data-server="echo"][data-state="up"][data-restarts="1"]', { timeout: 10_000 });
      const echo = await page.$eval('[data-server="echo"]', (el) => el.textContent ?? "");
      expect(echo).toContain("was killed by SIGKILL");
      expect(echo).toContain(`pid ${pidOf(b, "echo")}`);
      expect(await page.$eval("#lifecycle", (el) => el.textContent)).toMatch(/exit/);
      expect(await page.$eval("#calls", (el) => el.textContent)).toContain('{"text":"hi 29"}');
      expect(await page.$eval("#runs", (el) => el.textContent)).toContain("Echo answered: hello");
      // Let the sparklines take a second of calls.
      for (let i = 0; i < 30; i++) await b.callTool("echo__echo", { text: `after ${i}` });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, "observer.png"), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await observer.close();
    }
  }, 60_000);
});

const memberScript = fileURLToPath(new URL("../fixtures/fleet/observed-member.ts", import.meta.url));

describe.skipIf(!available || !redisAvailable)("the observer page of a fleet in Chromium (real Redis, two processes)", () => {
  let redis: TestRedis | undefined;
  let member: Worker | undefined;
  afterAll(async () => {
    if (member !== undefined && member.child.exitCode === null && member.child.signalCode === null) member.child.kill("SIGKILL");
    await member?.done;
    await redis?.stop();
  });

  it("shows every member of the fleet with its servers, and a member killed -9 as gone", async () => {
    redis = await startRedis();
    const prefix = `browser-${Date.now()}`;
    member = startWorker(memberScript, { MEMBER: JSON.stringify({ redis: redis.url, prefix, secret: "sekret-browser-fleet-31d0" }) });
    await member.ready;
    const memberPid = member.child.pid!;
    const fleet = redisFleet({ url: redis.url }, prefix);
    const b = board({ servers: { alpha: { command: node, args: [echoServer] } }, fleet });
    await b.start();
    await fleet.ready();
    const observer = await observe(b, { port: 0 });
    const browser = await launch();
    try {
      const page = await browser.newPage();
      await page.setViewport({ width: 1400, height: 900 });
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      await page.goto(observer.url);
      for (let i = 0; i < 40; i++) await b.callTool("alpha__echo", { text: `a ${i}` });
      const other = `[data-member][data-pid="${memberPid}"]`;
      await page.waitForSelector(`${other}[data-alive="true"] [data-fleet-server="beta"][data-state="up"]`, { timeout: 20_000 });
      await page.waitForSelector(`[data-member][data-pid="${process.pid}"][data-alive="true"] [data-fleet-server="alpha"]`, { timeout: 10_000 });
      expect(await page.$eval(other, (el) => el.textContent ?? "")).toMatch(/beta up · in flight \d+ · \d+ calls\/s/);
      expect(await page.$eval("#fleet-note", (el) => el.textContent ?? "")).toContain("2 live, 0 gone");
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, "observer-fleet.png"), fullPage: true });

      member.child.kill("SIGKILL");
      await page.waitForSelector(`${other}[data-alive="false"]`, { timeout: LEASE_MS + 5_000 });
      expect(await page.$eval(other, (el) => el.textContent ?? "")).toContain("gone");
      await page.screenshot({ path: join(artifacts, "observer-fleet-gone.png"), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await observer.close();
      await b.stop();
      await fleet.close();
    }
  }, 90_000);
});

describe.skipIf(!available || !redisAvailable)("the observer page's numbers against the server's (real Redis)", () => {
  it("first paint from the server's snapshot; in flight, waiting and refused apart; fleet totals; stale while Redis is away", async () => {
    const redis = await startRedis();
    const server = await startCountingServer({ holdMs: 1_500 });
    const fleet = redisFleet({ url: redis.url }, `numbers-${Date.now()}`);
    const b = board({ servers: { api: { url: server.url, fleet: { maxConcurrency: 2 }, restart: { maxRestarts: 0 } } }, fleet });
    await b.start();
    await fleet.ready();
    const observer = await observe(b, { port: 0 });
    const browser = await launch();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      // The HTML itself carries the board: drawn before any event arrives.
      await page.goto(observer.url, { waitUntil: "domcontentloaded" });
      expect(await page.$('[data-server="api"][data-state="up"]')).not.toBeNull();

      const calls = Array.from({ length: 5 }, () => b.callTool("api__work", {}));
      // A call whose permit wait outlasts its timeout: refused here, never sent.
      await expect(b.callTool("api__work", {}, { timeoutMs: 100 })).rejects.toThrow(/fleet permit/);
      await waitFor(() => server.inFlight === 2 && b.status().api.waiting === 3, 5_000);
      await page.waitForFunction(
        `(() => { const el = document.querySelector('[data-server="api"]'); return el !== null && el.textContent.includes("in flight 2 ·") && el.textContent.includes("waiting 3"); })()`,
        { timeout: 5_000, polling: 50 },
      );
      const row = await page.$eval('[data-server="api"]', (el) => el.textContent ?? "");
      expect(row).toContain(`in flight ${server.inFlight} ·`);
      expect(row).toContain("refused here 1");
      await page.waitForSelector('[data-total="api"][data-held="2"][data-waiting="3"]', { timeout: 5_000 });
      expect(await page.$eval('[data-total="api"]', (el) => el.textContent ?? "")).toContain("permits held 2 of 2");
      await Promise.all(calls);
      // Calls/s counts what the server answered: the 5 calls, not the refused one.
      expect(b.status().api.inFlight).toBe(0);
      expect(server.starts.length).toBe(5);
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, "observer-numbers.png"), fullPage: true });

      await redis.stop();
      await page.waitForSelector(`[data-member][data-pid="${process.pid}"] [data-stale="true"]`, { timeout: 10_000 });
      expect(await page.$eval("#fleet-note", (el) => el.textContent ?? "")).toMatch(/^stale: /);
      expect(await page.$eval("#lifecycle", (el) => el.textContent ?? "")).toContain("fleet degraded");
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
      await observer.close();
      await b.stop();
      await fleet.close();
      await server.close();
      await redis.stop();
    }
  }, 60_000);
});
