/**
 * The gateway (docs/guide/gateway.md): what serving a board as one MCP server costs a client, against
 * the same upstream reached directly and through a proxy built from the official SDK alone (an SDK
 * Server per session forwarding to one SDK Client, bench/lib/gateway-proxy.ts). Two upstreams, each
 * with an instant `echo` tool over Streamable HTTP and its own set of proxies (GATEWAY_UPSTREAMS picks):
 * the raw HTTP responder (JSON replies, next to no work a call) and the official SDK's McpServer. Each
 * runs in its own process, as does each proxy; the load comes from this process with our client (2025 era).
 * A fourth path is the floor: a forwarder that knows nothing of MCP (node:http in, undici out, bytes
 * untouched), which no gateway built on those two can beat; it says how much of the gap to direct is
 * the extra hop itself and how much is the gateway's own work.
 *
 * Each round runs the four paths in an order that rotates from round to round; the result is the
 * median over GATEWAY_ROUNDS (default 3). Then: the p50 latency the gateway adds at concurrency 1, and
 * the heap per idle session (GATEWAY_SESSIONS opened on an in-process gateway). Goals at concurrency
 * 64: the gateway ≥ 0.5x direct and ≥ 2x the SDK proxy.
 * The CPU each process spends per call at c64 is read from /proc (Linux), to say where the time goes.
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
import { cpuPerCall } from "./lib/process-cpu.js";
import { round2 } from "./lib/throughput-matrix.js";

const ROUNDS = Number(process.env.GATEWAY_ROUNDS ?? 3);
const CALLS: Record<number, number> = { 1: 1_000, 64: 10_000 };
const WARM_UP: Record<number, number> = { 1: 200, 64: 3_000 };
/** Idle sessions one gateway process is made to hold (maxSessions raised to fit): "how many can one hold". */
const SESSIONS = Number(process.env.GATEWAY_SESSIONS ?? 100_000);
const DIRECT = "direct";
const OURS = "our gateway";
const SDK = "SDK-only proxy";
const FLOOR = "bytes-only forwarder";
const PATHS = [DIRECT, OURS, FLOOR, SDK] as const;
type Path = (typeof PATHS)[number];
const CPU_OF = ["client", "proxy", "upstream"] as const;
/**
 * Two upstreams with the same instant `echo` tool. The raw responder costs next to nothing a call, so
 * the extra hop weighs most against it: the strict reading. The official SDK's McpServer is what most
 * servers a gateway fronts are built on, so its reading is the one users meet.
 */
const ALL_UPSTREAMS = [
  { key: "raw", name: "raw HTTP responder", script: "../examples/servers/raw-http-responder.mjs" },
  { key: "sdk", name: "SDK McpServer", script: "../examples/servers/http-echo-server.mjs" },
] as const;
const UPSTREAMS = ALL_UPSTREAMS.filter((u) => (process.env.GATEWAY_UPSTREAMS ?? "raw,sdk").split(",").includes(u.key));

const { serveBoard } = (await import(
  process.env.BENCH_DIST ? new URL("../dist/gateway/index.js", import.meta.url).href : "../src/gateway/index.js"
)) as typeof GatewayModule;

function startProxy(mode: "ours" | "sdk" | "raw", upstream: string): Promise<ServerProcess> {
  const script = fileURLToPath(new URL("./lib/gateway-proxy.ts", import.meta.url));
  // The SDK proxy warns once per call past 1,500 abort listeners on one signal (its leak, docs/guide/gateway.md):
  // thousands of lines that would bury the tables, so its warnings are off.
  const env = mode === "sdk" ? { ...process.env, NODE_NO_WARNINGS: "1" } : process.env;
  const child = spawn(process.execPath, ["--import", "tsx", script, mode, upstream], { stdio: ["pipe", "pipe", "inherit"], env });
  return new Promise((resolve, reject) => {
    child.stdout.once("data", (chunk: Buffer) =>
      resolve({
        port: Number(chunk.toString().trim()),
        pid: child.pid!,
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

interface Measured {
  row: Row;
  /** CPU µs per call of each process on the path: this one (the client), the proxy, the upstream. */
  cpu: Record<string, number>;
}

/** One upstream and the three proxies in front of it, each in its own process. */
interface Setup {
  upstream: ServerProcess;
  proxies: Record<Exclude<Path, typeof DIRECT>, ServerProcess>;
  urls: Record<Path, string>;
}

async function run(setup: Setup, path: Path, concurrency: number): Promise<Measured> {
  // One connection more than the calls at once: a proxy's GET stream holds one for as long as the session.
  const client = await connect({ url: setup.urls[path], connections: concurrency + 1 }, { protocol: "legacy" });
  const tool = path === OURS ? "up__echo" : "echo";
  try {
    // Enough calls for the JIT to settle the heavier paths too (a gateway runs for days, not 10,000 calls).
    await drive("warm-up", WARM_UP[concurrency], concurrency, () => client.callTool(tool, ECHO_ARGS));
    const pids: Record<string, number> = { client: process.pid, upstream: setup.upstream.pid };
    if (path !== DIRECT) pids.proxy = setup.proxies[path].pid;
    const { result, cpu } = await cpuPerCall(pids, CALLS[concurrency], () =>
      drive(path, CALLS[concurrency], concurrency, () => client.callTool(tool, ECHO_ARGS)),
    );
    return { row: summarise(result), cpu };
  } finally {
    await client.close();
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Heap per idle 2025-era session, and the process's RSS: SESSIONS sessions opened by `initialize` on a gateway in this process. */
async function sessionHeap(upstream: string): Promise<{ bytesPerSession: number; rssMiB: number; openSeconds: number }> {
  const board = new Switchboard({ servers: { up: { url: upstream } }, client: { protocol: "legacy" } });
  await board.start();
  const gateway = await serveBoard(board, { port: 0, maxSessions: SESSIONS + 20 });
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
    const opening = performance.now();
    for (let i = 0; i < SESSIONS; i += 100) await Promise.all(Array.from({ length: Math.min(100, SESSIONS - i) }, open));
    const openSeconds = (performance.now() - opening) / 1000;
    const after = await settledHeap();
    if (gateway.sessions !== SESSIONS + 20) throw new Error(`expected ${SESSIONS + 20} sessions, found ${gateway.sessions}`);
    return { bytesPerSession: (after - before) / SESSIONS, rssMiB: process.memoryUsage().rss / 2 ** 20, openSeconds };
  } finally {
    await gateway.close();
    await board.stop();
  }
}

async function startSetup(upstreamScript: string): Promise<Setup> {
  const upstream = await startServerProcess(fileURLToPath(new URL(upstreamScript, import.meta.url)));
  const upstreamUrl = `http://127.0.0.1:${upstream.port}/mcp`;
  const proxies: Setup["proxies"] = {
    [OURS]: await startProxy("ours", upstreamUrl),
    [FLOOR]: await startProxy("raw", upstreamUrl),
    [SDK]: await startProxy("sdk", upstreamUrl),
  };
  const urls = { [DIRECT]: upstreamUrl } as Record<Path, string>;
  for (const [path, proxy] of Object.entries(proxies)) urls[path as Path] = `http://127.0.0.1:${proxy.port}/mcp`;
  return { upstream, proxies, urls };
}

const stopSetup = (setup: Setup) => Promise.all([...Object.values(setup.proxies).map((proxy) => proxy.stop()), setup.upstream.stop()]);

const started = machine();
const title = "Gateway: direct vs our gateway vs a bytes-only forwarder vs an SDK-only proxy (instant tool, Streamable HTTP)";
const method = `${ROUNDS} rounds per concurrency, paths rotated each round, ${CALLS[1]} calls at c1 and ${CALLS[64]} at c64 after 200 and 3,000 calls of warm-up; medians; the client is ours (2025 era); upstream, each proxy and the client in their own processes; CPU per call from /proc; two upstreams, each with its own proxies: ${UPSTREAMS.map((u) => u.name).join(" and ")}`;
console.log(`\n## ${title} (${machineLine()}; load ${started.load1}; ${method})\n`);
const rows: Record<string, string | number>[] = [];
const ratios: Record<string, number> = {};
const targets: Record<string, number> = {};
for (const upstreamKind of UPSTREAMS) {
  const setup = await startSetup(upstreamKind.script);
  // The raw responder's keys stay unsuffixed: it is the strict reading, where the upstream costs nearly nothing.
  const suffix = upstreamKind.key === "raw" ? "" : `-${upstreamKind.key}-upstream`;
  const label = upstreamKind.key === "raw" ? "" : `, ${upstreamKind.name} upstream`;
  console.log(`### upstream: ${upstreamKind.name}\n`);
  try {
    for (const concurrency of [1, 64]) {
      const seen = Object.fromEntries(PATHS.map((path) => [path, [] as Measured[]])) as Record<Path, Measured[]>;
      for (let round = 0; round < ROUNDS; round++)
        for (let i = 0; i < PATHS.length; i++) {
          const path = PATHS[(i + round) % PATHS.length];
          seen[path].push(await run(setup, path, concurrency));
        }
      const rate = (path: Path) => median(seen[path].map((r) => r.row.reqPerSec));
      const p50 = (path: Path) => median(seen[path].map((r) => r.row.p50));
      const cpu = (path: Path, process: string) => {
        const values = seen[path].map((r) => r.cpu[process]).filter((v): v is number => v !== undefined);
        return values.length === 0 ? undefined : median(values);
      };
      console.log(`#### concurrency ${concurrency}\n`);
      console.log(
        table(
          ["path", "req/s", "p50 ms", "÷ direct"],
          PATHS.map((path) => [path, rate(path), p50(path), `${round2(rate(path) / rate(DIRECT))}x`]),
        ),
      );
      console.log();
      const cpuColumns = (path: Path) =>
        Object.fromEntries(CPU_OF.flatMap((process) => (cpu(path, process) === undefined ? [] : [[`${process}CpuUs`, cpu(path, process)!]])));
      for (const path of PATHS)
        rows.push({ upstream: upstreamKind.name, concurrency, client: path, reqPerSec: Math.round(rate(path)), p50Ms: round2(p50(path)), ...cpuColumns(path) });
      if (concurrency === 64 && cpu(DIRECT, "client") !== undefined) {
        console.log(`CPU per call at c${concurrency}, µs (user + system, each process's median over the rounds):\n`);
        console.log(
          table(
            ["path", ...CPU_OF, "total"],
            PATHS.map((path) => [path, ...CPU_OF.map((p) => cpu(path, p) ?? "-"), CPU_OF.reduce((sum, p) => sum + (cpu(path, p) ?? 0), 0)]),
          ),
        );
        console.log();
      }
      ratios[`gateway ÷ direct, c${concurrency}${label}`] = round2(rate(OURS) / rate(DIRECT));
      ratios[`gateway ÷ SDK proxy, c${concurrency}${label}`] = round2(rate(OURS) / rate(SDK));
      ratios[`gateway ÷ bytes-only forwarder, c${concurrency}${label}`] = round2(rate(OURS) / rate(FLOOR));
      ratios[`bytes-only forwarder ÷ direct, c${concurrency}${label}`] = round2(rate(FLOOR) / rate(DIRECT));
      if (concurrency === 1) targets[`gateway-added-p50-ms${suffix}`] = round2(p50(OURS) - p50(DIRECT));
      else {
        targets[`gateway-vs-direct-c64${suffix}`] = round2(rate(OURS) / rate(DIRECT));
        targets[`gateway-vs-sdk-c64${suffix}`] = round2(rate(OURS) / rate(SDK));
        targets[`gateway-vs-floor-c64${suffix}`] = round2(rate(OURS) / rate(FLOOR));
      }
    }
    if (upstreamKind.key === "raw" && SESSIONS > 0) {
      const held = await sessionHeap(setup.urls[DIRECT]);
      targets["gateway-session-bytes"] = Math.round(held.bytesPerSession);
      targets["gateway-sessions-held"] = SESSIONS;
      targets["gateway-sessions-rss-mib"] = Math.round(held.rssMiB);
      console.log(
        `One process held ${SESSIONS.toLocaleString("en-US")} idle sessions (opened in ${held.openSeconds.toFixed(1)} s): ` +
          `${Math.round(held.bytesPerSession)} bytes of heap each, RSS ${Math.round(held.rssMiB)} MiB\n`,
      );
    }
  } finally {
    await stopSetup(setup);
  }
}
console.log(
  table(
    ["reading", "value"],
    Object.entries({ ...ratios, ...targets }).map(([k, v]) => [k, v]),
  ),
);
// One group per concurrency, a bar per path: the chart docs/bench/gateway.svg (bench/charts.ts draws it).
const chart = {
  title: "Gateway: calls/s by path",
  xLabel: "concurrency",
  panels: UPSTREAMS.map((upstreamKind) => ({
    title: `calls/s, instant tool on the ${upstreamKind.name}`,
    unit: "calls/s",
    groups: [1, 64].map((concurrency) => ({
      label: `c${concurrency}`,
      values: Object.fromEntries(
        rows.filter((row) => row.upstream === upstreamKind.name && row.concurrency === concurrency).map((row) => [row.client, Number(row.reqPerSec)]),
      ),
    })),
  })),
};
console.log(`\nwrote ${writeResult({ bench: "gateway", title, method, rows, ratios, targets, chart }, started)}`);
