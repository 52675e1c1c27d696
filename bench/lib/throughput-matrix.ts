/**
 * The shape every throughput benchmark shares: for each server, at concurrency 1 and 64, each client
 * calls `echo` (best of ROUNDS, each round on a fresh client), then a table per cell with the ratio of
 * this client to each other one. Ratios matter, not absolute numbers: the machines are noisy.
 */
import { drive, machineLine, summarise, table, type Row } from "./stats.js";

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const SCALE = Number(process.env.BENCH_SCALE ?? 1);
export const OURS = "mcp-switchboard";

export type Caller = { call: () => Promise<unknown>; close: () => Promise<void> };
/** Opens a ready client on the server at `address` (a script path, a URL: whatever the bench uses). */
export type ClientFactory = (address: string) => Promise<Caller>;
export interface BenchServer {
  address: string;
  stop(): Promise<void>;
}

export interface MatrixSpec {
  title: string;
  /** Names the JSON summary line. */
  bench: string;
  servers: Record<string, () => Promise<BenchServer>>;
  /** The first must be OURS; the others are compared with it. */
  clients: Record<string, ClientFactory>;
  /** Calls per round at concurrency 1 and 64. */
  totals: { c1: number; c64: number };
}

/** cell name -> client name -> best row */
export type MatrixResult = Record<string, Record<string, Row>>;

async function measure(factory: ClientFactory, label: string, address: string, concurrency: number, total: number): Promise<Row> {
  let best: Row | undefined;
  for (let round = 0; round < ROUNDS; round++) {
    const caller = await factory(address);
    await drive("warm-up", Math.round(total / 5), concurrency, caller.call);
    const row = summarise(await drive(label, total, concurrency, caller.call));
    await caller.close();
    if (!best || row.reqPerSec > best.reqPerSec) best = row;
  }
  return best!;
}

export async function runMatrix(spec: MatrixSpec): Promise<MatrixResult> {
  console.log(`\n## ${spec.title} (${machineLine()}, best of ${ROUNDS})\n`);
  const results: MatrixResult = {};
  const ratios: Record<string, number> = {};
  for (const [serverName, start] of Object.entries(spec.servers)) {
    const server = await start();
    try {
      for (const concurrency of [1, 64]) {
        const total = Math.round((concurrency === 1 ? spec.totals.c1 : spec.totals.c64) * SCALE);
        const rows: Record<string, Row> = {};
        for (const [clientName, factory] of Object.entries(spec.clients)) {
          rows[clientName] = await measure(factory, clientName, server.address, concurrency, total);
        }
        const cell = `${serverName}, concurrency ${concurrency}`;
        results[cell] = rows;
        const ours = rows[OURS];
        console.log(`### ${cell}\n`);
        console.log(
          table(
            ["client", "req/s", "p50 ms", "p99 ms", "ours ÷ this (req/s)"],
            Object.values(rows).map((r) => [r.label, r.reqPerSec, r.p50, r.p99, r === ours ? "—" : `${(ours.reqPerSec / r.reqPerSec).toFixed(2)}x`]),
          ),
        );
        console.log();
        for (const row of Object.values(rows)) if (row !== ours) ratios[`${cell}: ours ÷ ${row.label}`] = round2(ours.reqPerSec / row.reqPerSec);
      }
    } finally {
      await server.stop();
    }
  }
  console.log(JSON.stringify({ bench: spec.bench, ...ratios }));
  return results;
}

/**
 * The SDK's HTTP/WS client transports put one abort listener per request on a shared signal, which
 * floods stderr with MaxListenersExceededWarning during a run; say it once instead.
 */
export function quietListenerWarnings(): void {
  let told = false;
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (warning.name !== "MaxListenersExceededWarning") return void console.warn(warning);
    if (!told) console.warn(`(note: ${warning.message.split(".")[0]}: the official SDK client's shared abort signal; not this client)`);
    told = true;
  });
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
