/**
 * A workload to profile: `echo` calls at concurrency 64 against the raw stdio responder, through the
 * bare client or through a Switchboard (`bare` | `switchboard`, default switchboard), or over
 * Streamable HTTP through the bare client (`http`: the raw HTTP responder, JSON replies; `http-sse`: the
 * SDK's McpServer, SSE replies; `http-legacy`: the raw HTTP responder on the legacy HTTP+SSE transport;
 * `raw-http`, `raw-http-sse`: the same servers through the raw undici loop, to compare with;
 * PROFILE_CONCURRENCY sets the concurrency). It profiles only
 * the measured calls, after a warm-up (`node --cpu-prof` would add start-up: module loading and tsx's
 * compiling, most of a short run), through the inspector, and writes .scratch/prof/<mode>.cpuprofile:
 *   npx tsx bench/profile.ts switchboard && npx tsx bench/cpu-top.ts .scratch/prof/switchboard.cpuprofile
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { fileURLToPath } from "node:url";
import { connect, Switchboard } from "./lib/runtime.js";
import { ECHO_ARGS } from "./lib/echo-clients.js";
import { rawUndiciClient } from "./lib/raw-undici-client.js";
import { drive } from "./lib/stats.js";
import { startServerProcess } from "./lib/server-process.js";

const mode = process.argv[2] ?? "switchboard";
const calls = Number(process.env.PROFILE_CALLS ?? 200_000);
const concurrency = Number(process.env.PROFILE_CONCURRENCY ?? 64);
const httpScripts: Record<string, string> = { http: "raw-http-responder.mjs", "http-sse": "http-echo-server.mjs" };
const server = { command: process.execPath, args: [fileURLToPath(new URL("../examples/servers/raw-responder.mjs", import.meta.url))] };

let call: () => Promise<unknown>;
let close: () => Promise<void>;
if (mode === "bare") {
  const client = await connect(server, { protocol: "legacy" });
  call = () => client.callTool("echo", ECHO_ARGS);
  close = () => client.close();
} else if (mode === "switchboard") {
  const board = new Switchboard({ servers: { s: server }, client: { protocol: "legacy" } });
  await board.start();
  call = () => board.callTool("s__echo", ECHO_ARGS);
  close = () => board.stop();
} else if (httpScripts[mode] !== undefined || mode === "http-legacy") {
  const process = await startServerProcess(fileURLToPath(new URL(`../examples/servers/${httpScripts[mode] ?? "raw-http-responder.mjs"}`, import.meta.url)));
  const target =
    mode === "http-legacy" ? { url: `http://127.0.0.1:${process.port}/sse`, type: "sse" as const } : { url: `http://127.0.0.1:${process.port}/mcp` };
  const client = await connect(target, { protocol: "legacy" });
  call = () => client.callTool("echo", ECHO_ARGS);
  close = async () => {
    await client.close();
    await process.stop();
  };
} else if (mode.startsWith("raw-") && httpScripts[mode.slice(4)] !== undefined) {
  // The raw undici loop (bench/lib/raw-undici-client.ts) on the same server: the floor to compare with.
  const process = await startServerProcess(fileURLToPath(new URL(`../examples/servers/${httpScripts[mode.slice(4)]}`, import.meta.url)));
  const raw = await rawUndiciClient(`http://127.0.0.1:${process.port}/mcp`, ECHO_ARGS);
  call = raw.call;
  close = async () => {
    await raw.close();
    await process.stop();
  };
} else {
  throw new Error(`bench/profile.ts takes "bare", "switchboard", "http", "http-sse", "raw-http", "raw-http-sse" or "http-legacy", not "${mode}"`);
}
await drive("warm-up", Math.min(20_000, calls), concurrency, call);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.start");
const run = await drive(mode, calls, concurrency, call);
const { profile } = await session.post("Profiler.stop");
session.disconnect();
await close();
const dir = fileURLToPath(new URL("../.scratch/prof/", import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(`${dir}${mode}.cpuprofile`, JSON.stringify(profile));
console.log(
  `${mode}: ${calls.toLocaleString("en-US")} calls at concurrency ${concurrency}, ${Math.round(run.requests / run.seconds).toLocaleString("en-US")} req/s; profile in .scratch/prof/${mode}.cpuprofile`,
);
