/**
 * No internal key in any message. A transport's `identity` ("http:http://host/mcp",
 * "stdio:[...]") is a cache key; messages name the URL or the command. Checked two ways: the source
 * never puts an identity into a message, and the messages of real failed starts (refused, 404,
 * silent, HTTP 400 on every era, a missing command) carry none.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { placeOf } from "../../src/connection/eras/probe.js";
import { startScriptedHttp, type ScriptedHttp } from "../fixtures/scripted-http.js";
import { startSilentListener, type SilentListener } from "../fixtures/silent-http.js";
import { boardsAfterEach, fastRestart } from "./board-helpers.js";
import { waitFor } from "../helpers/processes.js";

const INTERNAL_KEY = /\b(?:http|sse|ws|memory):(?:https?|wss?):\/\/|\bstdio:\[/;
const src = fileURLToPath(new URL("../../src", import.meta.url));
const board = boardsAfterEach();
const peers: Array<ScriptedHttp | SilentListener> = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((peer) => peer.close()));
});

describe("messages name URLs and commands, never internal keys", () => {
  it("placeOf: an identity as a person reads it", () => {
    expect(placeOf("http:http://127.0.0.1:9/mcp")).toBe("http://127.0.0.1:9/mcp");
    expect(placeOf("sse:https://example.com/sse")).toBe("https://example.com/sse");
    expect(placeOf("ws:ws://127.0.0.1:9/")).toBe("ws://127.0.0.1:9/");
    expect(placeOf(`stdio:${JSON.stringify(["npx", ["-y", "server"], ""])}`)).toBe("npx -y server");
    expect(placeOf("stdio:not json")).toBe("the server");
    expect(placeOf("memory:pair")).toBe("the server");
    expect(placeOf(undefined)).toBe("the server");
  });

  it("the source puts no transport identity into a template string", () => {
    const offenders: string[] = [];
    for (const file of readdirSync(src, { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".ts")) continue;
      const text = readFileSync(join(src, file), "utf8");
      for (const [line, number] of text.split("\n").map((l, i) => [l, i + 1] as const)) {
        if (/\$\{[^}]*\bidentity\b[^}]*\}/.test(line) && !/placeOf\(/.test(line)) offenders.push(`${file}:${number}: ${line.trim()}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it("failed starts of every kind say the URL or the command as a person wrote it", async () => {
    const silent = await startSilentListener();
    const refused = await startSilentListener();
    await refused.close();
    const notFound = await startScriptedHttp(() => ({ status: 404, text: "no" }));
    const badRequest = await startScriptedHttp(() => ({ status: 400, text: "no" }));
    peers.push(silent, notFound, badRequest);
    const once = { ...fastRestart, maxRestarts: 0 };
    const b = board({
      client: { probeTimeoutMs: 200 },
      servers: {
        silent: { url: silent.url, restart: once },
        refused: { url: refused.url, restart: once },
        notFound: { url: notFound.url, restart: once },
        badRequest: { url: badRequest.url, restart: once },
        missing: { command: "definitely-not-a-command-19", restart: once },
      },
    });
    const messages: string[] = [];
    b.on("down", (event) => messages.push(event.reason, event.error?.message ?? ""));
    b.on("restart", (event) => messages.push(event.error.message));
    b.on("error", (event) => messages.push(event.error.message));
    await b.start();
    await waitFor(() => Object.values(b.status()).every((status) => status.state === "down"), 10_000);
    for (const status of Object.values(b.status())) messages.push(status.lastError ?? "", status.downReason ?? "");
    expect(messages.join("\n")).toContain(silent.url);
    expect(messages.join("\n")).toContain(badRequest.url.replace(/\/$/, ""));
    expect(messages.filter((message) => INTERNAL_KEY.test(message))).toEqual([]);
  });
});
