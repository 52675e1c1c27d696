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
      expect(await page.$eval("#fleet-note", (el) => el.textContent ?? "")).toContain("2 live of 2 listed");
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
