/**
 * One side of bench/ab-transports.ts: a process that loads the compiled package from the folder it is
 * given (this tree's dist/ or an older commit's) and runs one round at a time when the parent asks,
 * so the parent can alternate the two sides round by round. Each round is a fresh client or
 * Switchboard, a warm-up, then `calls` calls of `echo`; it answers with the rate and its own CPU time
 * per call (the server runs in another process, except for the memory pair).
 */
import { fileURLToPath } from "node:url";
import type * as Package from "../../src/index.js";
import { runLoad } from "../../src/cli/load.js";
import { respond } from "./memory-responder.js";

export type AbTransport = "stdio" | "websocket" | "switchboard-stdio" | "switchboard-memory";
export interface AbRequest {
  transport: AbTransport;
  concurrency: number;
  calls: number;
  /** The WebSocket responder's URL. */
  wsUrl: string;
}
export interface AbReply {
  reqPerSec: number;
  cpuUsPerCall: number;
}

const ARGS = { text: "hello" };
const RESPONDER = fileURLToPath(new URL("../../examples/servers/raw-responder.mjs", import.meta.url));
const stdio = { command: process.execPath, args: [RESPONDER] };

const root = process.argv[2];
if (!root) throw new Error("bench/lib/ab-worker.ts takes the folder holding dist/ (a package root)");
const pkg = (await import(new URL(`file://${root.replace(/\/$/, "")}/dist/index.js`).href)) as typeof Package;

async function open(request: AbRequest): Promise<{ call: () => Promise<unknown>; close: () => Promise<void> }> {
  if (request.transport === "stdio" || request.transport === "websocket") {
    const target = request.transport === "stdio" ? stdio : { url: request.wsUrl };
    const client = await pkg.connect(target, { protocol: "legacy" });
    return { call: () => client.callTool("echo", ARGS), close: () => client.close() };
  }
  let server: Package.ServerInit = stdio;
  if (request.transport === "switchboard-memory") {
    const [client, serverSide] = pkg.memoryPair();
    respond(serverSide);
    server = { transport: () => client };
  }
  const board = new pkg.Switchboard({ servers: { s: server }, client: { protocol: "legacy" } });
  await board.start();
  return { call: () => board.callTool("s__echo", ARGS), close: () => board.stop() };
}

async function round(request: AbRequest): Promise<AbReply> {
  const caller = await open(request);
  try {
    await runLoad(Math.min(2_000, Math.round(request.calls / 5)), request.concurrency, caller.call);
    const cpu = process.cpuUsage();
    const load = await runLoad(request.calls, request.concurrency, caller.call);
    const used = process.cpuUsage(cpu);
    if (load.failures > 0) throw new Error(`${request.transport}: ${load.failures} of ${request.calls} calls failed`);
    return { reqPerSec: load.requests / load.seconds, cpuUsPerCall: (used.user + used.system) / load.requests };
  } finally {
    await caller.close();
  }
}

process.on("message", (request: AbRequest) => {
  round(request).then(
    (reply) => process.send!({ reply }),
    (error: unknown) => process.send!({ error: String((error as Error).stack ?? error) }),
  );
});
process.send!({ ready: true });
