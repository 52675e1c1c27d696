/**
 * stdio throughput, in one run: this client vs the official SDK client vs a raw JSON-RPC loop, each
 * calling the `echo` tool, at concurrency 1 and 64, against two servers:
 * - the SDK's McpServer (examples/servers/echo-server.mjs): what users run;
 * - a minimal hand-written responder (examples/servers/raw-responder.mjs): the server is not the
 *   bottleneck, so the client is measured.
 * Best of ROUNDS per cell, to damp machine noise. Ratios matter, not absolute numbers.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { fileURLToPath } from "node:url";
import { connect } from "../src/index.js";
import { RawStdioClient } from "./lib/raw-stdio-client.js";
import { drive, machineLine, summarise, table, type Row } from "./lib/stats.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SCALE = Number(process.env.BENCH_SCALE ?? 1);
const servers = {
  "raw responder": fileURLToPath(new URL("../examples/servers/raw-responder.mjs", import.meta.url)),
  "SDK McpServer": fileURLToPath(new URL("../examples/servers/echo-server.mjs", import.meta.url)),
};
const node = process.execPath;
const args = { text: "hello" };

type Caller = { call: () => Promise<unknown>; close: () => Promise<void> };

const clients: Record<string, (server: string) => Promise<Caller>> = {
  "mcp-switchboard": async (server) => {
    const client = await connect({ command: node, args: [server] }, { protocol: "legacy" });
    return { call: () => client.callTool("echo", args), close: () => client.close() };
  },
  "official SDK Client": async (server) => {
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(new StdioClientTransport({ command: node, args: [server], stderr: "ignore" }));
    return { call: () => client.callTool({ name: "echo", arguments: args }), close: () => client.close() };
  },
  "raw JSON-RPC loop": async (server) => {
    const client = new RawStdioClient(node, [server]);
    await client.initialize();
    return { call: () => client.request("tools/call", { name: "echo", arguments: args }), close: () => client.close() };
  },
};

async function measure(clientName: string, server: string, concurrency: number): Promise<Row> {
  const total = Math.round((concurrency === 1 ? 3_000 : 20_000) * SCALE);
  let best: Row | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    const caller = await clients[clientName](server);
    await drive("warm-up", Math.round(total / 5), concurrency, caller.call);
    const row = summarise(await drive(clientName, total, concurrency, caller.call));
    await caller.close();
    if (!best || row.reqPerSec > best.reqPerSec) best = row;
  }
  return best!;
}

export async function runStdioThroughput(): Promise<Record<string, Record<number, Record<string, Row>>>> {
  const results: Record<string, Record<number, Record<string, Row>>> = {};
  console.log(`\n## stdio throughput (${machineLine()}, best of ${ROUNDS})\n`);
  for (const [serverName, server] of Object.entries(servers)) {
    results[serverName] = {};
    for (const concurrency of [1, 64]) {
      const rows: Record<string, Row> = {};
      for (const clientName of Object.keys(clients)) rows[clientName] = await measure(clientName, server, concurrency);
      results[serverName][concurrency] = rows;
      const ours = rows["mcp-switchboard"];
      console.log(`### ${serverName}, concurrency ${concurrency}\n`);
      console.log(
        table(
          ["client", "req/s", "p50 ms", "p99 ms", "ours ÷ this (req/s)"],
          Object.values(rows).map((r) => [r.label, r.reqPerSec, r.p50, r.p99, r.label === ours.label ? "—" : `${(ours.reqPerSec / r.reqPerSec).toFixed(2)}x`]),
        ),
      );
      console.log();
    }
  }
  const c64 = results["raw responder"][64];
  const vsSdk = c64["mcp-switchboard"].reqPerSec / c64["official SDK Client"].reqPerSec;
  const vsRaw = c64["mcp-switchboard"].reqPerSec / c64["raw JSON-RPC loop"].reqPerSec;
  console.log(`Raw responder, concurrency 64: ${vsSdk.toFixed(2)}x the SDK client (target ≥ 2.5x), ${vsRaw.toFixed(2)}x the raw loop (target ≥ 0.75x)`);
  console.log(JSON.stringify({ bench: "stdio-throughput", vsSdk, vsRaw }));
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runStdioThroughput();
