/**
 * 2026-07-28 throughput, in one run: this client vs the official SDK v2 client
 * (`@modelcontextprotocol/client`, version negotiation `"auto"`), both negotiating the era by
 * themselves, calling the `echo` tool at concurrency 1 and 64 against:
 * - the SDK v2 server (examples/servers/modern-tools.mjs), 2026-only, over stdio and over Streamable
 *   HTTP (its own process, examples/servers/modern-http.mjs): what users will run;
 * - the minimal responder in its 2026 mode over stdio (RAW_MODERN=1): the server is not the
 *   bottleneck, so the clients are measured.
 * Median of ROUNDS interleaved rounds per cell (20,000 calls per round over stdio, 5,000 over HTTP).
 * Ratios matter, not absolute numbers. Writes docs/bench/modern-throughput.json.
 */
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { connect } from "./lib/runtime.js";
import { machine, writeResult, type ChartSpec } from "./lib/results.js";
import { drive, machineLine, summarise, table, type Row } from "./lib/stats.js";
import { CALLS, CONCURRENCIES, medianRow, round2, ROUNDS, SCALE } from "./lib/throughput-matrix.js";

const sdkStdio = [fileURLToPath(new URL("../examples/servers/modern-stdio.mjs", import.meta.url)), "modern-only"];
const rawStdio = [fileURLToPath(new URL("../examples/servers/raw-responder.mjs", import.meta.url))];
const httpServer = fileURLToPath(new URL("../examples/servers/modern-http.mjs", import.meta.url));
const node = process.execPath;
const args = { text: "hello" };

type Caller = { call: () => Promise<unknown>; close: () => Promise<void>; era: string };
type Target = { kind: "stdio"; args: string[]; env?: Record<string, string> } | { kind: "http"; url: string };

const clients: Record<string, (target: Target) => Promise<Caller>> = {
  "mcp-switchboard": async (target) => {
    const client = await connect(target.kind === "stdio" ? { command: node, args: target.args, env: target.env } : { url: target.url });
    return { call: () => client.callTool("echo", args), close: () => client.close(), era: client.era ?? "?" };
  },
  "official SDK v2 Client (auto)": async (target) => {
    const client = new Client({ name: "bench", version: "1" }, { versionNegotiation: { mode: "auto" } });
    const transport =
      target.kind === "stdio"
        ? new StdioClientTransport({ command: node, args: target.args, env: { ...process.env, ...target.env } as Record<string, string>, stderr: "ignore" })
        : new StreamableHTTPClientTransport(new URL(target.url));
    await client.connect(transport);
    const era = (client as unknown as { getProtocolEra?: () => string }).getProtocolEra?.() ?? "?";
    return { call: () => client.callTool({ name: "echo", arguments: args }), close: () => client.close(), era };
  },
};

/** Calls per round: 20,000 over stdio; over HTTP the SDK v2 server tops out near 1,000 req/s, so 5,000. */
const callsFor = (target: Target) => Math.max(100, Math.round((target.kind === "stdio" ? CALLS : 5_000) * SCALE));

async function round(clientName: string, target: Target, concurrency: number): Promise<Row & { era: string }> {
  const total = callsFor(target);
  const caller = await clients[clientName](target);
  try {
    await drive("warm-up", Math.min(2_000, Math.round(total / 5)), concurrency, caller.call);
    return { ...summarise(await drive(clientName, total, concurrency, caller.call)), era: caller.era };
  } finally {
    await caller.close();
  }
}

/** The HTTP server runs in its own process, so it does not share the clients' event loop. */
async function startHttpServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(node, [httpServer, "modern-only"], { stdio: ["pipe", "pipe", "inherit"] });
  let text = "";
  for await (const chunk of child.stdout) {
    text += chunk;
    if (text.includes("\n")) break;
  }
  return { child, url: text.trim() };
}

export async function runModernThroughput(): Promise<Record<string, number>> {
  const started = machine();
  const method = `${callsFor({ kind: "stdio", args: [] }).toLocaleString("en-US")} calls per round over stdio, ${callsFor({ kind: "http", url: "" }).toLocaleString("en-US")} over HTTP, median of ${ROUNDS} rounds, rounds interleaved`;
  console.log(`\n## 2026-07-28 throughput, auto negotiation (${machineLine()}; ${method})\n`);
  const { child, url } = await startHttpServer();
  const ratios: Record<string, number> = {};
  const rows: Record<string, string | number>[] = [];
  const chart: ChartSpec = {
    title: "2026-07-28 throughput, auto negotiation",
    xLabel: "server",
    panels: CONCURRENCIES.map((c) => ({ title: `concurrency ${c}`, unit: "req/s", groups: [] })),
  };
  const targets: [string, Target][] = [
    ["raw 2026 responder, stdio", { kind: "stdio", args: rawStdio, env: { RAW_MODERN: "1" } }],
    ["SDK v2 server, stdio", { kind: "stdio", args: sdkStdio }],
    ["SDK v2 server, Streamable HTTP", { kind: "http", url }],
  ];
  try {
    for (const [name, target] of targets) {
      for (const [panel, concurrency] of CONCURRENCIES.entries()) {
        const rounds: Record<string, (Row & { era: string })[]> = Object.fromEntries(Object.keys(clients).map((client) => [client, []]));
        for (let i = 0; i < ROUNDS; i++) for (const clientName of Object.keys(clients)) rounds[clientName].push(await round(clientName, target, concurrency));
        const medians = Object.fromEntries(Object.entries(rounds).map(([client, list]) => [client, medianRow(list) as Row & { era: string }]));
        const ours = medians["mcp-switchboard"];
        const sdk = medians["official SDK v2 Client (auto)"];
        ratios[`${name} c${concurrency}`] = round2(ours.reqPerSec / sdk.reqPerSec);
        console.log(`### ${name}, concurrency ${concurrency}\n`);
        console.log(
          table(
            ["client", "era", "req/s", "p50 ms", "p99 ms", "ours ÷ this (req/s)"],
            Object.values(medians).map((r) => [
              r.label,
              r.era,
              r.reqPerSec,
              r.p50,
              r.p99,
              r.label === ours.label ? "—" : `${(ours.reqPerSec / r.reqPerSec).toFixed(2)}x`,
            ]),
          ),
        );
        console.log();
        for (const r of Object.values(medians))
          rows.push({
            server: name,
            concurrency,
            client: r.label,
            era: r.era,
            calls: callsFor(target),
            reqPerSec: Math.round(r.reqPerSec),
            p50Ms: r.p50,
            p99Ms: r.p99,
          });
        chart.panels[panel].groups.push({ label: name, values: Object.fromEntries(Object.values(medians).map((r) => [r.label, Math.round(r.reqPerSec)])) });
      }
    }
  } finally {
    child.stdin!.end();
    if (child.exitCode === null) await once(child, "exit");
  }
  console.log(
    Object.entries(ratios)
      .map(([cell, ratio]) => `${cell}: ${ratio.toFixed(2)}x the SDK v2 client`)
      .join("; "),
  );
  console.log(JSON.stringify({ bench: "modern-throughput", ratios }));
  writeResult({ bench: "modern-throughput", title: "2026-07-28 throughput, auto negotiation", method, rows, ratios, targets: {}, chart }, started);
  return ratios;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runModernThroughput();
