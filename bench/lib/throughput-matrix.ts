/**
 * The shape every throughput benchmark shares: for each server, at concurrency 1 and 64, each client
 * calls `echo` CALLS times per round (20,000: the outside benchmark's method), ROUNDS rounds, each on a
 * fresh client; a cell reports each client's median round (by req/s). Rounds are interleaved (round 1 of
 * every client, then round 2, ...) so a slow spell of a shared machine hits every client alike. Prints a
 * table per cell with the ratio of this client to each other one, and writes docs/bench/<bench>.json
 * (every ratio there is better when higher: run-all compares them with the baseline).
 * Ratios matter, not absolute numbers: the machines are noisy.
 */
import { writeResult, machine, type ChartSpec } from "./results.js";
import { drive, machineLine, summarise, table, type Row } from "./stats.js";
import type { Readings } from "./targets.js";

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const SCALE = Number(process.env.BENCH_SCALE ?? 1);
export const CALLS = 20_000;
export const OURS = "mcp-switchboard";
export const CONCURRENCIES = [1, 64] as const;

export type Caller = { call: () => Promise<unknown>; close: () => Promise<void> };
/** Opens a ready client on the server at `address` (a script path, a URL: whatever the bench uses). */
export type ClientFactory = (address: string) => Promise<Caller>;
export interface BenchServer {
  address: string;
  stop(): Promise<void>;
}

export interface MatrixSpec {
  title: string;
  /** Names the results file (docs/bench/<bench>.json) and the summary line. */
  bench: string;
  servers: Record<string, () => Promise<BenchServer>>;
  /** The first must be OURS; the others are compared with it. */
  clients: Record<string, ClientFactory>;
  /**
   * Clients that are this client in another form (behind a Switchboard): their ratio is kept as
   * "<client> ÷ ours", so every ratio in the results file is better when higher.
   */
  ourOtherForms?: string[];
  /** Calls per round for a client slower than the rest (its rate is steady long before), by client name. */
  fewerCalls?: Record<string, number>;
  /** The target readings (bench/lib/targets.ts) this matrix measures. */
  targets?: (results: MatrixResult) => Readings;
}

/** cell name ("<server>, concurrency <n>") -> client name -> median row */
export type MatrixResult = Record<string, Record<string, Row>>;

export const cellName = (server: string, concurrency: number) => `${server}, concurrency ${concurrency}`;

/** The median round by req/s (the lower middle one for an even count), with that round's latencies. */
export function medianRow(rows: Row[]): Row {
  const sorted = [...rows].sort((a, b) => a.reqPerSec - b.reqPerSec);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function round(factory: ClientFactory, label: string, address: string, concurrency: number, total: number): Promise<Row> {
  const caller = await factory(address);
  try {
    await drive("warm-up", Math.min(2_000, Math.round(total / 5)), concurrency, caller.call);
    return summarise(await drive(label, total, concurrency, caller.call));
  } finally {
    await caller.close();
  }
}

export async function runMatrix(spec: MatrixSpec): Promise<MatrixResult> {
  const started = machine();
  const callsOf = (client: string) => Math.max(100, Math.round((spec.fewerCalls?.[client] ?? CALLS) * SCALE));
  const fewer = Object.entries(spec.fewerCalls ?? {}).map(([client]) => `; ${client}: ${callsOf(client).toLocaleString("en-US")}`);
  const method = `${callsOf(OURS).toLocaleString("en-US")} calls per round${fewer.join("")}, median of ${ROUNDS} rounds, rounds interleaved`;
  console.log(`\n## ${spec.title} (${machineLine()}; ${method})\n`);
  const results: MatrixResult = {};
  const ratios: Record<string, number> = {};
  const rows: Record<string, string | number>[] = [];
  for (const [serverName, start] of Object.entries(spec.servers)) {
    const server = await start();
    try {
      for (const concurrency of CONCURRENCIES) {
        const rounds: Record<string, Row[]> = Object.fromEntries(Object.keys(spec.clients).map((name) => [name, []]));
        for (let i = 0; i < ROUNDS; i++) {
          for (const [clientName, factory] of Object.entries(spec.clients)) {
            rounds[clientName].push(await round(factory, clientName, server.address, concurrency, callsOf(clientName)));
          }
        }
        const cell = cellName(serverName, concurrency);
        const medians = Object.fromEntries(Object.entries(rounds).map(([name, list]) => [name, medianRow(list)]));
        results[cell] = medians;
        const ours = medians[OURS];
        console.log(`### ${cell}\n`);
        console.log(
          table(
            ["client", "req/s", "p50 ms", "p99 ms", "ours ÷ this (req/s)"],
            Object.values(medians).map((r) => [r.label, r.reqPerSec, r.p50, r.p99, r === ours ? "—" : `${(ours.reqPerSec / r.reqPerSec).toFixed(2)}x`]),
          ),
        );
        console.log();
        for (const row of Object.values(medians)) {
          rows.push({
            server: serverName,
            concurrency,
            client: row.label,
            calls: callsOf(row.label),
            reqPerSec: Math.round(row.reqPerSec),
            p50Ms: round3(row.p50),
            p99Ms: round3(row.p99),
          });
          if (row === ours) continue;
          if (spec.ourOtherForms?.includes(row.label)) ratios[`${cell}: ${row.label} ÷ ours`] = round2(row.reqPerSec / ours.reqPerSec);
          else ratios[`${cell}: ours ÷ ${row.label}`] = round2(ours.reqPerSec / row.reqPerSec);
        }
      }
    } finally {
      await server.stop();
    }
  }
  console.log(JSON.stringify({ bench: spec.bench, ...ratios }));
  writeResult(
    { bench: spec.bench, title: spec.title, method, rows, ratios, targets: spec.targets?.(results) ?? {}, chart: matrixChart(spec, results) },
    started,
  );
  return results;
}

/** One panel per concurrency, a group of bars per server, a bar per client (req/s). */
function matrixChart(spec: MatrixSpec, results: MatrixResult): ChartSpec {
  return {
    title: spec.title,
    xLabel: "server",
    panels: CONCURRENCIES.map((concurrency) => ({
      title: `concurrency ${concurrency}`,
      unit: "req/s",
      groups: Object.keys(spec.servers).map((server) => ({
        label: server,
        values: Object.fromEntries(Object.entries(results[cellName(server, concurrency)]).map(([client, row]) => [client, Math.round(row.reqPerSec)])),
      })),
    })),
  };
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

export function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
