/**
 * Did the Streamable HTTP work on undici slow anything else down? An A/B of stdio, WebSocket and the
 * Switchboard (over stdio and over a memory pair) between this tree and the commit before the undici
 * merge (the first parent of main's merge of branch `undici`; AB_BASE=<rev> names another), in one run.
 *
 * The old commit is exported (`git archive`) to a folder under the system's temp dir, given this
 * tree's node_modules as hard links (`cp -al`) and built; that folder is kept for the next run (the
 * commit's id is in its name). Each side runs in its own long-lived process (bench/lib/ab-worker.ts)
 * loading its compiled dist/; the parent asks them for one round at a time, alternating which side
 * goes first (old-new, new-old, ...), so a busy spell of a shared machine falls on both alike. Every
 * round is a fresh client, a warm-up, then CALLS calls of `echo`; both sides call the same servers
 * (this tree's examples/servers/raw-responder.mjs and examples/servers/raw-http-responder.mjs).
 *
 * Reported per cell: each side's median rate and CPU time per call, and new ÷ old as the median of
 * the rounds' paired ratios (each round's new rate over the old rate measured next to it), with their
 * spread. A cell whose median ratio is under 0.95 is flagged. Writes docs/bench/ab-transports.json.
 *   npx tsx bench/ab-transports.ts            (AB_ROUNDS=8, AB_CALLS=10000 by default)
 */
import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AbReply, AbRequest, AbTransport } from "./lib/ab-worker.js";
import { machine, RESULTS_DIR } from "./lib/results.js";
import { startServerProcess } from "./lib/server-process.js";
import { table } from "./lib/stats.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ROUNDS = Number(process.env.AB_ROUNDS ?? 8);
const CALLS = Number(process.env.AB_CALLS ?? 10_000);
const DROP = 0.95;
const TRANSPORTS: Record<AbTransport, string> = {
  stdio: "stdio, raw responder",
  websocket: "WebSocket, raw responder",
  "switchboard-stdio": "Switchboard, stdio raw responder",
  "switchboard-memory": "Switchboard, memory pair",
};
const CONCURRENCIES = [1, 64];

const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();

/** The commit before the undici work: the first parent of the merge of branch `undici`. */
function baseCommit(): string {
  if (process.env.AB_BASE) return git("rev-parse", process.env.AB_BASE);
  const merge = git("log", "--merges", "--format=%H %s", "main")
    .split("\n")
    .find((line) => /Merge branch 'undici'/.test(line));
  if (!merge) throw new Error("No merge of branch 'undici' in main's history: name the commit to compare with in AB_BASE");
  return git("rev-parse", `${merge.split(" ")[0]}^1`);
}

function build(root: string): void {
  execFileSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
}

/** The old commit's tree, built, in a folder kept between runs. */
function oldTree(commit: string): string {
  const dir = join(os.tmpdir(), `mcpsb-ab-${commit.slice(0, 12)}`);
  if (existsSync(join(dir, "dist/index.js"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  console.log(`Exporting ${commit.slice(0, 12)} to ${dir} and building it...`);
  execFileSync("sh", ["-c", `git archive ${commit} | tar -x -C "${dir}"`], { cwd: ROOT, stdio: "inherit" });
  execFileSync("cp", ["-al", join(ROOT, "node_modules"), join(dir, "node_modules")]);
  build(dir);
  return dir;
}

interface Side {
  name: "old" | "new";
  child: ChildProcess;
}

function startSide(name: Side["name"], root: string): Promise<Side> {
  const child = fork(fileURLToPath(new URL("./lib/ab-worker.ts", import.meta.url)), [root], { execArgv: ["--import", "tsx"], stdio: "inherit" });
  return new Promise((resolve, reject) => {
    child.once("message", () => resolve({ name, child }));
    child.once("exit", (code) => reject(new Error(`the ${name} side exited with ${code}`)));
  });
}

function ask(side: Side, request: AbRequest): Promise<AbReply> {
  return new Promise((resolve, reject) => {
    const exited = (code: number | null) => reject(new Error(`the ${side.name} side exited with ${code}`));
    side.child.once("exit", exited);
    side.child.once("message", (message: { reply?: AbReply; error?: string }) => {
      side.child.off("exit", exited);
      if (message.reply) resolve(message.reply);
      else reject(new Error(`${side.name} side: ${message.error}`));
    });
    side.child.send(request);
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const commit = baseCommit();
const head = git("rev-parse", "HEAD");
const started = machine();
const old = oldTree(commit);
if (!process.env.AB_SKIP_BUILD) build(ROOT);
const ws = await startServerProcess(join(ROOT, "examples/servers/raw-http-responder.mjs"));
const sides = [await startSide("old", old), await startSide("new", ROOT)];
const loads: number[] = [];
type Cell = { old: AbReply[]; new: AbReply[] };
const cells = new Map<string, Cell>();
try {
  console.log(
    `\n## A/B: ${head.slice(0, 12)} (new) vs ${commit.slice(0, 12)} (old, before the undici merge); ${CALLS.toLocaleString("en-US")} calls per round, ${ROUNDS} rounds, sides alternating; load ${started.load1} at the start\n`,
  );
  for (let i = 0; i < ROUNDS; i++) {
    loads.push(os.loadavg()[0]);
    for (const transport of Object.keys(TRANSPORTS) as AbTransport[]) {
      for (const concurrency of CONCURRENCIES) {
        const key = `${TRANSPORTS[transport]}, concurrency ${concurrency}`;
        const cell = cells.get(key) ?? { old: [], new: [] };
        cells.set(key, cell);
        // Which side goes first alternates with the round and the cell.
        const order = (i + concurrency) % 2 === 0 ? sides : [...sides].reverse();
        for (const side of order) cell[side.name].push(await ask(side, { transport, concurrency, calls: CALLS, wsUrl: `ws://127.0.0.1:${ws.port}/mcp` }));
      }
    }
    console.log(`round ${i + 1} of ${ROUNDS} done (load ${os.loadavg()[0].toFixed(1)})`);
  }
} finally {
  for (const side of sides) side.child.kill();
  await ws.stop();
}

const rows: Record<string, string | number>[] = [];
const ratios: Record<string, number> = {};
for (const [key, cell] of cells) {
  const paired = cell.new.map((reply, i) => reply.reqPerSec / cell.old[i].reqPerSec);
  const ratio = median(paired);
  ratios[`${key}: new ÷ old`] = Math.round(ratio * 1000) / 1000;
  rows.push({
    cell: key,
    oldReqPerSec: Math.round(median(cell.old.map((r) => r.reqPerSec))),
    newReqPerSec: Math.round(median(cell.new.map((r) => r.reqPerSec))),
    newOverOld: Math.round(ratio * 1000) / 1000,
    pairedMin: Math.round(Math.min(...paired) * 100) / 100,
    pairedMax: Math.round(Math.max(...paired) * 100) / 100,
    oldCpuUsPerCall: Math.round(median(cell.old.map((r) => r.cpuUsPerCall)) * 10) / 10,
    newCpuUsPerCall: Math.round(median(cell.new.map((r) => r.cpuUsPerCall)) * 10) / 10,
    verdict: ratio < DROP ? "DROP over 5%" : "ok",
  });
}
console.log();
console.log(
  table(
    ["cell", "old req/s", "new req/s", "new ÷ old (median of rounds)", "rounds' range", "old CPU µs/call", "new CPU µs/call", "verdict"],
    rows.map((r) => [
      r.cell,
      r.oldReqPerSec,
      r.newReqPerSec,
      `${Number(r.newOverOld).toFixed(3)}x`,
      `${r.pairedMin}–${r.pairedMax}`,
      r.oldCpuUsPerCall,
      r.newCpuUsPerCall,
      r.verdict,
    ]),
  ),
);
const load = { atStart: started.load1, perRound: loads.map((l) => Math.round(l * 10) / 10) };
console.log(`\nLoad (1-minute average) at each round's start: ${load.perRound.join(", ")}`);
mkdirSync(RESULTS_DIR, { recursive: true });
writeFileSync(
  `${RESULTS_DIR}ab-transports.json`,
  `${JSON.stringify({ bench: "ab-transports", date: new Date().toISOString(), machine: started, runtime: "dist (compiled), both sides", new: head, old: commit, rounds: ROUNDS, calls: CALLS, load, rows, ratios }, null, 2)}\n`,
);
