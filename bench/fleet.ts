/**
 * What fleet mode costs and gives, on a real Redis (a private redis-server on a unix socket,
 * or REDIS_URL):
 *
 * 1. One process, 64 callers at once (C=64) on one server: calls/s with a fleet concurrency limit on
 *    (far above what is reached, so every call needs a fleet permit) against
 *    the same board without a fleet; and Redis round trips per call (permits are leased in batches
 *    into a local pool, twice what the waiting callers ask; a call that finds a permit in the pool
 *    takes the board's direct path with no round trip; every 50 ms one script renews the pool while
 *    the limit has room, src/fleet/gate.ts), and this process's CPU per call, which a loaded machine's
 *    scheduler does not blur as it blurs calls/s.
 *    Two servers: one answering at once (the worst case for the fleet: nothing to hide a round trip
 *    behind) and one taking 2 ms per call, as a real tool does. FLEET_BENCH_ROUNDS (default 5) rounds
 *    interleaved, medians kept.
 * 2. 8 processes against one server that takes 5 ms, then 20 ms, per call, with `fleet: { maxConcurrency: 8 }`:
 *    the fleet's total calls/s against what the limit allows (8 / 5 ms = 1600/s; 8 / 20 ms = 400/s) and
 *    against the same 8 in flight with no fleet (1 per process), and the most in flight.
 * 3. Fairness: 4 processes x 2 callers with cap 2, and 8 x 2 with cap 4, contending for FLEET_BENCH_FAIR_MS
 *    (default 10 s): each process's calls against an equal share, the p99 wait for a permit, and the
 *    calls/s against what the cap allows (permits are handed out in the order asked, src/fleet/scripts.ts).
 *
 * Run alone: `npx tsx bench/fleet.ts`. Writes docs/bench/fleet.json (and the chart, via bench/charts.ts).
 */
import { fileURLToPath } from "node:url";
import type { FleetGate } from "../src/index.js";
import { redisFleet } from "../src/fleet/index.js";
import { memoryPair, Switchboard } from "./lib/runtime.js";
import { machine, writeResult } from "./lib/results.js";
import { respond } from "./lib/memory-responder.js";
import { startRedis } from "../test/helpers/redis.js";
import { startCountingServer } from "../test/fixtures/fleet/counting-server.js";
import { startWorker } from "../test/helpers/workers.js";

const C = 64;
/**
 * Calls per round: half a second or more of each server's calls at this machine's pace, so a window
 * is not one garbage collection or one scheduling hiccup long (20,000 instant calls took 50 ms).
 */
const callsFor = (delayMs: number) => Number(process.env.FLEET_BENCH_CALLS ?? (delayMs === 0 ? 200_000 : 20_000));
const ROUNDS = Number(process.env.FLEET_BENCH_ROUNDS ?? 5);
const started = machine();
const redis = await startRedis();

/** Calls/s of one board at C=64, and Redis round trips per call when it has a fleet. */
async function oneProcess(delayMs: number, withFleet: boolean): Promise<{ rate: number; roundTripsPerCall: number; cpuUs: number }> {
  const calls = callsFor(delayMs);
  const [client, server] = memoryPair();
  respond(server, { delayMs });
  const fleet = withFleet ? redisFleet({ url: redis.url }, `bench-${Date.now()}-${Math.random()}`) : undefined;
  const limits = { maxConcurrency: 10_000 };
  const board = new Switchboard({ servers: { s: { transport: () => client, protocol: "legacy", ...(withFleet ? { fleet: limits } : {}) } }, fleet });
  await board.start();
  await fleet?.ready();
  const gate = fleet?.gate("s", limits, { failureThreshold: 5, cooldownMs: 10_000 }) as (FleetGate & { roundTrips: number }) | undefined;
  // Warm up at the measured concurrency, in both cases: an in-memory server answers in a microtask,
  // so a burst of calls never yields to I/O, and a burst can only use the fleet permits the process
  // held when it began; the warm-up lets it lease its pool (the steady state of a busy process).
  let warm = 0;
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (warm++ < 2_000) await board.callTool("s__echo", {});
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 5));
  const tripsBefore = gate?.roundTrips ?? 0;
  let next = 0;
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: C }, async () => {
      while (next++ < calls) await board.callTool("s__echo", {});
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  const trips = (gate?.roundTrips ?? 0) - tripsBefore;
  await board.stop();
  await fleet?.close();
  return { rate: calls / seconds, roundTripsPerCall: trips / calls, cpuUs: (used.user + used.system) / calls };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rows: Record<string, string | number>[] = [];
const ratios: Record<string, number> = {};
const groups: { label: string; values: Record<string, number> }[] = [];
for (const delayMs of [0, 2]) {
  const on: number[] = [];
  const off: number[] = [];
  const trips: number[] = [];
  const cpuOn: number[] = [];
  const cpuOff: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const without = await oneProcess(delayMs, false);
    off.push(without.rate);
    cpuOff.push(without.cpuUs);
    const measured = await oneProcess(delayMs, true);
    on.push(measured.rate);
    cpuOn.push(measured.cpuUs);
    trips.push(measured.roundTripsPerCall);
  }
  const label = delayMs === 0 ? "server answers at once" : `server takes ${delayMs} ms`;
  const ratio = median(on) / median(off);
  rows.push({
    case: `1 process, C=${C}, ${label}`,
    "fleet off calls/s": Math.round(median(off)),
    "fleet limits on calls/s": Math.round(median(on)),
    "on / off": Math.round(ratio * 100) / 100,
    "Redis round trips per call": Math.round(median(trips) * 1000) / 1000,
    "CPU µs per call, off / on": `${median(cpuOff).toFixed(2)} / ${median(cpuOn).toFixed(2)}`,
  });
  ratios[`fleet on/off, ${label}`] = Math.round(ratio * 100) / 100;
  // This process's CPU per call (user + system): what a loaded machine's scheduler cannot blur.
  ratios[`fleet CPU per call off/on, ${label}`] = Math.round((median(cpuOff) / median(cpuOn)) * 100) / 100;
  groups.push({ label, values: { "fleet off": Math.round(median(off)), "fleet limits on": Math.round(median(on)) } });
  console.log(rows.at(-1));
}

// ---- 8 processes against one server, with a fleet-wide limit -----------------------------------------
const HOLD_MS = 5;
/**
 * Call times for the 8-process case: 5 ms, where this 2-core machine cannot run 8 calls at once through
 * 8 processes at the limit's pace even without a fleet (the baseline row says how near it gets), and
 * 20 ms, a quick real tool, where the machine keeps up and the number says what the fleet's hand-offs cost.
 */
const EIGHT_HOLDS = (process.env.FLEET_BENCH_HOLDS ?? "5,20").split(",").map(Number);
const LIMIT = 8;
const PROCESSES = 8;
const PER_PROCESS = Number(process.env.FLEET_BENCH_PER_PROCESS ?? 400);
const worker = fileURLToPath(new URL("../test/fixtures/fleet/caps-worker.ts", import.meta.url));
/** 8 processes against one server; calls/s at the server and the most in flight there. */
async function eightProcesses(holdMs: number, limits: { fleet?: { maxConcurrency: number }; local?: number }): Promise<{ rate: number; maxInFlight: number }> {
  const server = await startCountingServer({ holdMs });
  const startAt = Date.now() + 15_000;
  const settings = { url: server.url, redis: redis.url, prefix: `bench-fleet-${startAt}`, calls: PER_PROCESS, concurrency: 4, startAt };
  const workers = Array.from({ length: PROCESSES }, () =>
    startWorker(worker, { CAPS: JSON.stringify({ ...settings, limits: limits.fleet, localMaxConcurrency: limits.local }) }),
  );
  const outcomes = await Promise.all(workers.map((w) => w.done));
  const done = outcomes.reduce((sum, o) => sum + (o?.ok ?? 0), 0);
  const seconds = (Math.max(...server.starts) + holdMs - Math.min(...server.starts)) / 1000;
  await server.close();
  return { rate: done / seconds, maxInFlight: server.maxInFlight };
}
for (const holdMs of EIGHT_HOLDS) {
  const withFleet = await eightProcesses(holdMs, { fleet: { maxConcurrency: LIMIT } });
  // The same 8 in flight without a fleet (each process limited to 1 alone): what this machine does with
  // 8 calls in flight, so the fleet's number reads against it as well as against the limit's arithmetic.
  const baseline = await eightProcesses(holdMs, { local: LIMIT / PROCESSES });
  const allowed = LIMIT * (1000 / holdMs);
  rows.push({
    case: `${PROCESSES} processes x ${PER_PROCESS} calls, fleet maxConcurrency ${LIMIT}, server takes ${holdMs} ms`,
    "fleet calls/s": Math.round(withFleet.rate),
    "the limit allows calls/s": allowed,
    "of the limit": Math.round((withFleet.rate / allowed) * 100) / 100,
    "most in flight at the server": withFleet.maxInFlight,
    "no fleet, 1 in flight per process, calls/s": Math.round(baseline.rate),
    "no fleet, of the limit": Math.round((baseline.rate / allowed) * 100) / 100,
  });
  ratios[`8 processes, ${holdMs} ms calls: calls/s / what the limit allows`] = Math.round((withFleet.rate / allowed) * 100) / 100;
  ratios[`8 processes, ${holdMs} ms calls: fleet limit / 1 per process without a fleet`] = Math.round((withFleet.rate / baseline.rate) * 100) / 100;
  groups.push({
    label: `${PROCESSES} processes, 8 in flight, ${holdMs} ms calls`,
    values: { "fleet limits on": Math.round(withFleet.rate), "no fleet, 1 per process": Math.round(baseline.rate), "the limit allows": allowed },
  });
  console.log(rows.at(-1));
}

// ---- fairness: every process contending for a small fleet-wide cap ------------------------------------
const FAIR_MS = Number(process.env.FLEET_BENCH_FAIR_MS ?? 10_000);
/**
 * `processes` x `lanes` callers for FAIR_MS against `fleet: { maxConcurrency: cap }`: each process's
 * calls (its share: the fewest against an equal split), the p99 of a call's wait for its permit (its
 * time less the server's hold), and calls/s against what the cap allows (cap / call time).
 */
async function contended(processes: number, lanes: number, cap: number): Promise<void> {
  const server = await startCountingServer({ holdMs: HOLD_MS });
  const startAt = Date.now() + 15_000;
  const settings = {
    url: server.url,
    redis: redis.url,
    prefix: `bench-fair-${startAt}`,
    calls: 0,
    durationMs: FAIR_MS,
    concurrency: lanes,
    startAt,
    limits: { maxConcurrency: cap },
  };
  const outcomes = (await Promise.all(Array.from({ length: processes }, () => startWorker(worker, { CAPS: JSON.stringify(settings) }).done))).map((o) => o!);
  const seconds = (Math.max(...server.starts) + HOLD_MS - Math.min(...server.starts)) / 1000;
  await server.close();
  const shares = outcomes.map((o) => o.ok);
  const total = shares.reduce((a, b) => a + b, 0);
  const fewest = Math.min(...shares) / (total / processes);
  const limitUse = total / seconds / (cap * (1000 / HOLD_MS));
  const waitP99 = Math.max(...outcomes.map((o) => (o.p99Ms ?? 0) - HOLD_MS));
  const label = `${processes}x${lanes} cap ${cap}`;
  rows.push({
    case: `${processes} processes x ${lanes} callers for ${FAIR_MS / 1000} s, fleet maxConcurrency ${cap}, server takes ${HOLD_MS} ms`,
    "calls per process": shares.join(" "),
    "fewest / fair share": Math.round(fewest * 100) / 100,
    "p99 permit wait ms (worst process)": Math.round(waitP99),
    "calls/s / what the cap allows": Math.round(limitUse * 100) / 100,
    "most in flight at the server": server.maxInFlight,
    failed: outcomes.reduce((sum, o) => sum + o.failed, 0),
    "breaker events": outcomes.reduce((sum, o) => sum + o.events.length, 0),
  });
  ratios[`${label}: fewest calls / fair share`] = Math.round(fewest * 100) / 100;
  ratios[`${label}: calls/s / what the cap allows`] = Math.round(limitUse * 100) / 100;
  console.log(rows.at(-1));
}
await contended(4, 2, 2);
await contended(8, 2, 4);
await redis.stop();

writeResult(
  {
    bench: "fleet",
    title: "Fleet mode on Redis: cost of fleet limits in one process, and 8 processes against a fleet-wide limit",
    method: `${callsFor(0)} calls per round at C=${C} (instant server), ${callsFor(2)} (2 ms server), median of ${ROUNDS} interleaved rounds; then ${PROCESSES} processes x ${PER_PROCESS} calls at ${EIGHT_HOLDS.join(" and ")} ms a call. Shared 2-core machine, loaded by other work: read the ratios, not the absolute numbers`,
    rows,
    ratios,
    targets: {},
    chart: { title: "Fleet mode: calls/s", xLabel: "case", panels: [{ title: "calls/s", unit: "calls/s", groups }] },
  },
  started,
);
process.exit(0);
