/**
 * The gateway (docs/guide/gateway.md): what serving a board as one MCP server costs a client, against
 * the same upstream reached directly and through a proxy built from the official SDK alone (an SDK
 * Server per session forwarding to one SDK Client, bench/lib/gateway-proxy.ts). The upstream is the
 * raw HTTP responder (an instant `echo` tool over Streamable HTTP, JSON replies) in its own process;
 * each proxy runs in its own process too; the load comes from this process with our client (2025 era).
 *
 * Each round runs the three paths in an order that rotates from round to round; the result is the
 * median over GATEWAY_ROUNDS (default 3). Then: the p50 latency the gateway adds at concurrency 1, and
 * the heap per idle session (1,000 sessions opened on an in-process gateway). Goals at concurrency 64:
 * the gateway ≥ 0.5x direct and ≥ 2x the SDK proxy.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type * as GatewayModule from "../src/gateway/index.js";
import { ECHO_ARGS } from "./lib/echo-clients.js";
import { settledHeap } from "./lib/heap.js";
import { machine, writeResult } from "./lib/results.js";
import { connect, Switchboard } from "./lib/runtime.js";
import { startServerProcess, type ServerProcess } from "./lib/server-process.js";
import { drive, machineLine, summarise, table, type Row } from "./lib/stats.js";
import { round2 } from "./lib/throughput-matrix.js";

const ROUNDS = Number(process.env.GATEWAY_ROUNDS ?? 3);
const CALLS: Record<number, number> = { 1: 1_000, 64: 10_000 };
const SESSIONS = 1_000;
const DIRECT = "direct";
const OURS = "our gateway";
const SDK = "SDK-only proxy";
const PATHS = [DIRECT, OURS, SDK] as const;
type Path = (typeof PATHS)[number];

const { serveBoard } = (await import(
  process.env.BENCH_DIST ? new URL("../dist/gateway/index.js", import.meta.url).href : "../src/gateway/index.js"
)) as typeof GatewayModule;

function startProxy(mode: "ours" | "sdk", upstream: string): Promise<ServerProcess> {
  const script = fileURLToPath(new URL("./lib/gateway-proxy.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script, mode, upstream], { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout.once("data", (chunk: Buffer) =>
      resolve({
        port: Number(chunk.toString().trim()),
        stop: () =>
          new Promise<void>((done) => {
            child.once("exit", () => done());
            child.stdin.end();
            setTimeout(() => child.kill("SIGKILL"), 2000).unref();
          }),
      }),
    );
    child.once("exit", (code) => reject(new Error(`gateway-proxy ${mode} exited with ${code}`)));
  });
}

async function run(path: Path, url: string, concurrency: number): Promise<Row> {
  // One connection more than the calls at once: a proxy's GET stream holds one for as long as the session.
  const client = await connect({ url, connections: concurrency + 1 }, { protocol: "legacy" });
  const tool = path === OURS ? "up__echo" : "echo";
  try {
    await drive("warm-up", 200, concurrency, () => client.callTool(tool, ECHO_ARGS));
    return summarise(await drive(path, CALLS[concurrency], concurrency, () => client.callTool(tool, ECHO_ARGS)));
  } finally {
    await client.close();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Heap per idle 2025-era session: SESSIONS sessions opened by `initialize` on a gateway in this process. */
async function sessionHeap(upstream: string): Promise<number> {
  const board = new Switchboard({ servers: { up: { url: upstream } }, client: { protocol: "legacy" } });
  await board.start();
  const gateway = await serveBoard(board, { port: 0 });
  try {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } },
    });
    const open = () =>
      fetch(gateway.url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body }).then((r) =>
        r.text(),
      );
    for (let i = 0; i < 20; i++) await open(); // the server's own first-use allocations, outside the reading
    const before = await settledHeap();
    for (let i = 0; i < SESSIONS; i += 50) await Promise.all(Array.from({ length: 50 }, open));
    const after = await settledHeap();
    if (gateway.sessions !== SESSIONS + 20) throw new Error(`expected ${SESSIONS + 20} sessions, found ${gateway.sessions}`);
    return (after - before) / SESSIONS;
  } finally {
    await gateway.close();
    await board.stop();
  }
}

const started = machine();
const upstream = await startServerProcess(fileURLToPath(new URL("../examples/servers/raw-http-responder.mjs", import.meta.url)));
const upstreamUrl = `http://127.0.0.1:${upstream.port}/mcp`;
const ours = await startProxy("ours", upstreamUrl);
const sdk = await startProxy("sdk", upstreamUrl);
const urls: Record<Path, string> = { [DIRECT]: upstreamUrl, [OURS]: `http://127.0.0.1:${ours.port}/mcp`, [SDK]: `http://127.0.0.1:${sdk.port}/mcp` };
const title = "Gateway: direct vs our gateway vs an SDK-only proxy (instant tool, Streamable HTTP)";
const method = `${ROUNDS} rounds per concurrency, paths rotated each round, ${CALLS[1]} calls at c1 and ${CALLS[64]} at c64 after 200 of warm-up; medians; the client is ours (2025 era); upstream, each proxy and the client in their own processes`;
console.log(`\n## ${title} (${machineLine()}; load ${started.load1}; ${method})\n`);
const rows: Record<string, string | number>[] = [];
const ratios: Record<string, number> = {};
const targets: Record<string, number> = {};
try {
  for (const concurrency of [1, 64]) {
    const seen: Record<Path, Row[]> = { [DIRECT]: [], [OURS]: [], [SDK]: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (let i = 0; i < PATHS.length; i++) {
        const path = PATHS[(i + round) % PATHS.length];
        seen[path].push(await run(path, urls[path], concurrency));
      }
    const rate = (path: Path) => median(seen[path].map((r) => r.reqPerSec));
    const p50 = (path: Path) => median(seen[path].map((r) => r.p50));
    console.log(`### concurrency ${concurrency}\n`);
    console.log(
      table(
        ["path", "req/s", "p50 ms", "÷ direct"],
        PATHS.map((path) => [path, rate(path), p50(path), `${round2(rate(path) / rate(DIRECT))}x`]),
      ),
    );
    console.log();
    for (const path of PATHS) rows.push({ concurrency, client: path, reqPerSec: Math.round(rate(path)), p50Ms: round2(p50(path)) });
    ratios[`gateway ÷ direct, c${concurrency}`] = round2(rate(OURS) / rate(DIRECT));
    ratios[`gateway ÷ SDK proxy, c${concurrency}`] = round2(rate(OURS) / rate(SDK));
    if (concurrency === 1) targets["gateway-added-p50-ms"] = round2(p50(OURS) - p50(DIRECT));
    else {
      targets["gateway-vs-direct-c64"] = round2(rate(OURS) / rate(DIRECT));
      targets["gateway-vs-sdk-c64"] = round2(rate(OURS) / rate(SDK));
    }
  }
  const perSession = await sessionHeap(upstreamUrl);
  targets["gateway-session-bytes"] = Math.round(perSession);
  console.log(`Heap per idle session (${SESSIONS} sessions): ${Math.round(perSession)} bytes`);
  console.log(
    table(
      ["reading", "value"],
      Object.entries({ ...ratios, ...targets }).map(([k, v]) => [k, v]),
    ),
  );
} finally {
  await Promise.all([ours.stop(), sdk.stop(), upstream.stop()]);
}
// One group per concurrency, a bar per path: the chart docs/bench/gateway.svg (bench/charts.ts draws it).
const chart = {
  title: "Gateway: calls/s by path",
  xLabel: "concurrency",
  panels: [
    {
      title: "calls/s (instant upstream tool)",
      unit: "calls/s",
      groups: [1, 64].map((concurrency) => ({
        label: `c${concurrency}`,
        values: Object.fromEntries(rows.filter((row) => row.concurrency === concurrency).map((row) => [row.client, Number(row.reqPerSec)])),
      })),
    },
  ],
};
console.log(`\nwrote ${writeResult({ bench: "gateway", title, method, rows, ratios, targets, chart }, started)}`);
