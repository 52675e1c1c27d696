/**
 * A workload to profile: `echo` calls against the raw stdio responder at concurrency 64, through the
 * bare client or through a Switchboard (`bare` | `switchboard`, default switchboard). It profiles only
 * the measured calls, after a warm-up (`node --cpu-prof` would add start-up: module loading and tsx's
 * compiling, most of a short run), through the inspector, and writes .scratch/prof/<mode>.cpuprofile:
 *   npx tsx bench/profile.ts switchboard && npx tsx bench/cpu-top.ts .scratch/prof/switchboard.cpuprofile
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { fileURLToPath } from "node:url";
import { connect, Switchboard } from "./lib/runtime.js";
import { ECHO_ARGS } from "./lib/echo-clients.js";
import { drive } from "./lib/stats.js";

const mode = process.argv[2] ?? "switchboard";
const calls = Number(process.env.PROFILE_CALLS ?? 200_000);
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
} else {
  throw new Error(`bench/profile.ts takes "bare" or "switchboard", not "${mode}"`);
}
await drive("warm-up", 20_000, 64, call);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.start");
const run = await drive(mode, calls, 64, call);
const { profile } = await session.post("Profiler.stop");
session.disconnect();
await close();
const dir = fileURLToPath(new URL("../.scratch/prof/", import.meta.url));
mkdirSync(dir, { recursive: true });
writeFileSync(`${dir}${mode}.cpuprofile`, JSON.stringify(profile));
console.log(
  `${mode}: ${calls.toLocaleString("en-US")} calls at concurrency 64, ${Math.round(run.requests / run.seconds).toLocaleString("en-US")} req/s; profile in .scratch/prof/${mode}.cpuprofile`,
);
