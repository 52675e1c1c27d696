/**
 * 2026-07-28 throughput, in one run: this client vs the official SDK v2 client
 * (`@modelcontextprotocol/client`, version negotiation `"auto"`), both negotiating the era by
 * themselves, calling the `echo` tool at concurrency 1 and 64 against:
 * - the SDK v2 server (examples/servers/modern-tools.mjs), 2026-only, over stdio and over Streamable
 *   HTTP (its own process, examples/servers/modern-http.mjs): what users will run;
 * - the minimal responder in its 2026 mode over stdio (RAW_MODERN=1): the server is not the
 *   bottleneck, so the clients are measured.
 * Best of ROUNDS per cell. Ratios matter, not absolute numbers.
 */
import { Client } from "@modelcontextprotocol/client";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { connect } from "../src/index.js";
import { drive, machineLine, summarise, table, type Row } from "./lib/stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
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

async function measure(clientName: string, target: Target, concurrency: number): Promise<Row & { era: string }> {
  const base = target.kind === "stdio" ? (concurrency === 1 ? 2_000 : 10_000) : concurrency === 1 ? 1_000 : 4_000;
  const total = Math.max(100, Math.round(base * SCALE));
  let best: (Row & { era: string }) | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    const caller = await clients[clientName]!(target);
    await drive("warm-up", Math.round(total / 5), concurrency, caller.call);
    const row = { ...summarise(await drive(clientName, total, concurrency, caller.call)), era: caller.era };
    await caller.close();
    if (!best || row.reqPerSec > best.reqPerSec) best = row;
  }
  return best!;
}

/** The HTTP server runs in its own process, so it does not share the clients' event loop. */
async function startHttpServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(node, [httpServer, "modern-only"], { stdio: ["pipe", "pipe", "inherit"] });
  let text = "";
  for await (const chunk of child.stdout!) {
    text += chunk;
    if (text.includes("\n")) break;
  }
  return { child, url: text.trim() };
}

export async function runModernThroughput(): Promise<Record<string, number>> {
  console.log(`\n## 2026-07-28 throughput, auto negotiation (${machineLine()}, best of ${ROUNDS})\n`);
  const { child, url } = await startHttpServer();
  const ratios: Record<string, number> = {};
  const targets: [string, Target][] = [
    ["raw 2026 responder, stdio", { kind: "stdio", args: rawStdio, env: { RAW_MODERN: "1" } }],
    ["SDK v2 server, stdio", { kind: "stdio", args: sdkStdio }],
    ["SDK v2 server, Streamable HTTP", { kind: "http", url }],
  ];
  try {
    for (const [name, target] of targets) {
      for (const concurrency of [1, 64]) {
        const rows: Record<string, Row & { era: string }> = {};
        for (const clientName of Object.keys(clients)) rows[clientName] = await measure(clientName, target, concurrency);
        const ours = rows["mcp-switchboard"]!;
        const sdk = rows["official SDK v2 Client (auto)"]!;
        ratios[`${name} c${concurrency}`] = ours.reqPerSec / sdk.reqPerSec;
        console.log(`### ${name}, concurrency ${concurrency}\n`);
        console.log(
          table(
            ["client", "era", "req/s", "p50 ms", "p99 ms", "ours ÷ this (req/s)"],
            Object.values(rows).map((r) => [r.label, r.era, r.reqPerSec, r.p50, r.p99, r.label === ours.label ? "—" : `${(ours.reqPerSec / r.reqPerSec).toFixed(2)}x`]),
          ),
        );
        console.log();
      }
    }
  } finally {
    child.stdin!.end();
    if (child.exitCode === null) await once(child, "exit");
  }
  console.log(Object.entries(ratios).map(([cell, ratio]) => `${cell}: ${ratio.toFixed(2)}x the SDK v2 client`).join("; "));
  console.log(JSON.stringify({ bench: "modern-throughput", ratios }));
  return ratios;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runModernThroughput();
