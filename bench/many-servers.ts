/**
 * Many servers at once: 100 stdio servers (the minimal raw responder, so the clients are measured)
 * under one Switchboard, 64 concurrent calls spread across them round-robin; then the same with the
 * official SDK, one `Client` + `StdioClientTransport` per server. req/s and p99 for each, and their
 * ratio. One set of 100 processes at a time; the benchmark fails if any server process outlives it.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import { Switchboard } from "./lib/runtime.js";
import { ECHO_ARGS } from "./lib/echo-clients.js";
import { childPids, waitForNoChildren } from "./lib/child-processes.js";
import { machine, writeResult } from "./lib/results.js";
import { drive, machineLine, summarise, table, type Row } from "./lib/stats.js";
import { CALLS, medianRow, OURS, round2, ROUNDS, SCALE } from "./lib/throughput-matrix.js";

const SERVERS = Number(process.env.MANY_SERVERS ?? 100);
const CONCURRENCY = 64;
const TOTAL = Math.max(SERVERS, Math.round(CALLS * SCALE));
const node = process.execPath;
const responder = fileURLToPath(new URL("../examples/servers/raw-responder.mjs", import.meta.url));
const SDK = "official SDK Client, one per server";

interface Fleet {
  startMs: number;
  call: (i: number) => Promise<unknown>;
  close: () => Promise<void>;
}

async function switchboardFleet(): Promise<Fleet> {
  const servers = Object.fromEntries(Array.from({ length: SERVERS }, (_, i) => [`s${i}`, { command: node, args: [responder] }]));
  const board = new Switchboard({ servers, client: { protocol: "legacy" } });
  const started = performance.now();
  await board.start();
  const startMs = performance.now() - started;
  const down = Object.entries(board.status()).filter(([, s]) => s.state !== "up");
  if (down.length > 0) throw new Error(`${down.length} of ${SERVERS} servers did not come up, e.g. ${down[0][0]}: ${down[0][1].lastError}`);
  const names = Array.from({ length: SERVERS }, (_, i) => `s${i}__echo`);
  return { startMs, call: (i) => board.callTool(names[i % SERVERS], ECHO_ARGS), close: () => board.stop() };
}

async function sdkFleet(): Promise<Fleet> {
  const started = performance.now();
  const clients = await Promise.all(
    Array.from({ length: SERVERS }, async () => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(new StdioClientTransport({ command: node, args: [responder], stderr: "ignore" }));
      return client;
    }),
  );
  const startMs = performance.now() - started;
  return {
    startMs,
    call: (i) => clients[i % SERVERS].callTool({ name: "echo", arguments: ECHO_ARGS }),
    close: async () => void (await Promise.all(clients.map((client) => client.close()))),
  };
}

async function measure(label: string, open: () => Promise<Fleet>): Promise<Row & { startMs: number }> {
  const fleet = await open();
  try {
    const running = childPids(responder).length;
    if (running < SERVERS) throw new Error(`${label}: expected ${SERVERS} server processes, found ${running}`);
    await drive("warm-up", Math.min(2_000, TOTAL), CONCURRENCY, fleet.call);
    const rounds: Row[] = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(summarise(await drive(label, TOTAL, CONCURRENCY, fleet.call)));
    return { ...medianRow(rounds), startMs: fleet.startMs };
  } finally {
    await fleet.close();
    await waitForNoChildren(responder, label);
  }
}

const started = machine();
const method = `${SERVERS} raw-responder processes, ${CONCURRENCY} calls at once round-robin across them, ${TOTAL.toLocaleString("en-US")} calls per round, median of ${ROUNDS} rounds`;
console.log(`\n## ${SERVERS} stdio servers at once (${machineLine()}; ${method})\n`);
const ours = await measure(OURS, switchboardFleet);
const sdk = await measure(SDK, sdkFleet);
const ratio = ours.reqPerSec / sdk.reqPerSec;
console.log(
  table(
    ["client", `start ${SERVERS} servers (ms)`, "req/s", "p50 ms", "p99 ms", "ours ÷ this (req/s)"],
    [
      [`${OURS} (one Switchboard)`, ours.startMs, ours.reqPerSec, ours.p50, ours.p99, "—"],
      [SDK, sdk.startMs, sdk.reqPerSec, sdk.p50, sdk.p99, `${ratio.toFixed(2)}x`],
    ],
  ),
);
console.log(`\nNo server process left (checked with pgrep -P ${process.pid} -f raw-responder.mjs after each fleet closed).`);
const group = `${SERVERS} stdio servers, concurrency ${CONCURRENCY}`;
writeResult(
  {
    bench: "many-servers",
    title: `${SERVERS} stdio servers at once`,
    method,
    rows: [ours, sdk].map((row) => ({
      client: row.label,
      servers: SERVERS,
      concurrency: CONCURRENCY,
      startMs: Math.round(row.startMs),
      reqPerSec: Math.round(row.reqPerSec),
      p50Ms: row.p50,
      p99Ms: row.p99,
    })),
    ratios: { [`${group}: ours ÷ ${SDK}`]: round2(ratio) },
    targets: { "many-servers-vs-sdk": ratio },
    chart: {
      title: `${SERVERS} stdio servers at once, ${CONCURRENCY} calls in flight`,
      panels: [
        { title: "throughput", unit: "req/s", groups: [{ label: group, values: { [OURS]: Math.round(ours.reqPerSec), [SDK]: Math.round(sdk.reqPerSec) } }] },
        { title: "p99 latency (lower is better)", unit: "ms", groups: [{ label: group, values: { [OURS]: round2(ours.p99), [SDK]: round2(sdk.p99) } }] },
      ],
    },
  },
  started,
);
