// The conformance matrix (`npm run conformance`, through .ci/conformance): every client scenario of each
// official runner version, at every protocol revision the scenario lists, each run a separate runner
// process driving examples/conformance-client.ts. The scenario lists come from the runners' own `list`
// output, so a runner upgrade brings its new scenarios in without an edit here.
//
// Runs per scenario:
// - runner 0.1.16: once. It tells the client no protocol version (its scenarios are 2025-era servers)
//   and ignores --spec-version for a single scenario.
// - runner 0.2.0-alpha.12: once per dated revision the scenario lists (`--spec-version <rev>`: the
//   runner then serves that revision's wire and tells the client through MCP_CONFORMANCE_PROTOCOL_VERSION);
//   extension scenarios, which are on no revision's timeline, once at the runner's default.
//
// Environment:
//   CONFORMANCE_ONLY       all (default) | nonauth | auth
//   CONFORMANCE_SCENARIOS  comma-separated scenario names (default: every one)
//   CONFORMANCE_RUNNERS    comma-separated runner keys: 0.1,0.2 (default: both)
//   CONFORMANCE_JOBS       runs at once (default 3; each scenario server listens on its own ephemeral port)
//   CONFORMANCE_TIMEOUT_MS per-run client timeout handed to the runner (default 30000)
// Logs of every run: .scratch/conformance/<runner>/<revision>/<scenario>.log. Exit status 1 if any run failed.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const runnerDir = join(root, ".ci/conformance-runner");
const node22 = join(runnerDir, "node_modules/node/bin/node");
const runners = [
  { key: "0.1", version: "0.1.16", entry: join(runnerDir, "node_modules/conformance-0.1/dist/index.js"), revisions: false },
  { key: "0.2", version: "0.2.0-alpha.12", entry: join(runnerDir, "node_modules/conformance-0.2/dist/index.js"), revisions: true },
];
// The client under test runs on the machine's Node (the one the project supports), not the runner's.
const clientCommand = `${process.execPath} --import tsx examples/conformance-client.ts`;
const only = process.env.CONFORMANCE_ONLY ?? "all";
const pick = new Set((process.env.CONFORMANCE_SCENARIOS ?? "").split(",").filter(Boolean));
const pickRunners = new Set((process.env.CONFORMANCE_RUNNERS ?? "").split(",").filter(Boolean));
const jobs = Math.max(1, Number(process.env.CONFORMANCE_JOBS ?? 3));
const timeoutMs = Number(process.env.CONFORMANCE_TIMEOUT_MS ?? 30_000);
const logRoot = join(root, ".scratch/conformance");
const DEFAULT = "default";

if (!["all", "nonauth", "auth"].includes(only)) {
  console.error(`CONFORMANCE_ONLY must be all, nonauth or auth, not ${JSON.stringify(only)}`);
  process.exit(2);
}

function run(command, args, { timeout } = {}) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    // The runner kills a client that overstays --timeout itself; this only guards against a runner
    // that hangs, so CI gets a failed row instead of a stuck job.
    const guard = timeout ? setTimeout(() => child.kill("SIGKILL"), timeout) : undefined;
    child.on("close", (code, signal) => {
      clearTimeout(guard);
      done({ code: code ?? 1, signal, output });
    });
    child.on("error", (error) => {
      clearTimeout(guard);
      done({ code: 1, signal: null, output: `${output}\n${error.message}` });
    });
  });
}

/** The client scenarios a runner lists, with the revisions each runs at. */
async function clientScenarios(runner) {
  const { code, output } = await run(node22, [runner.entry, "list"]);
  if (code !== 0) throw new Error(`conformance ${runner.version} list failed:\n${output}`);
  const section = output.split(/^Client scenarios.*$/m)[1]?.split(/^\S.*$/m)[0] ?? "";
  const scenarios = [...section.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].map(([, name, tags]) => ({ name, tags: tags.split(",") }));
  if (scenarios.length === 0) throw new Error(`conformance ${runner.version} list shows no client scenarios:\n${output}`);
  return scenarios;
}

function revisionsOf(runner, scenario) {
  if (!runner.revisions) return [DEFAULT];
  const dated = scenario.tags.filter((tag) => /^\d{4}-\d\d-\d\d$/.test(tag));
  return dated.length > 0 ? dated : [DEFAULT];
}

async function runOne(task) {
  const args = [task.runner.entry, "client", "--command", clientCommand, "--scenario", task.scenario, "--timeout", String(timeoutMs)];
  if (task.revision !== DEFAULT) args.push("--spec-version", task.revision);
  const started = Date.now();
  const { code, signal, output } = await run(node22, args, { timeout: timeoutMs + 60_000 });
  const log = join(logRoot, task.runner.key, task.revision, `${task.scenario.replaceAll("/", "_")}.log`);
  mkdirSync(dirname(log), { recursive: true });
  writeFileSync(log, output);
  const checks = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
  let result = code === 0 && !signal ? "pass" : "FAIL";
  if (result === "pass" && /^SKIPPED: scenario/m.test(output)) result = "skipped";
  return { ...task, result, ms: Date.now() - started, checks: checks ? `${checks[1]}/${checks[2]}` : "-", log, output };
}

async function pool(tasks, width, worker) {
  const results = new Array(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await worker(tasks[i]);
        process.stderr.write(results[i].result === "pass" ? "." : results[i].result === "skipped" ? "s" : "F");
      }
    }),
  );
  process.stderr.write("\n");
  return results;
}

function failureLines(output) {
  const lines = output.split("\n");
  const start = lines.findIndex((line) => /^(Failed Checks:|Client exited with code|Client timed out)/.test(line));
  const from = start < 0 ? Math.max(0, lines.length - 12) : start;
  return lines
    .slice(from, from + 12)
    .map((line) => `      ${line}`)
    .join("\n");
}

const started = Date.now();
const tasks = [];
for (const runner of runners) {
  if (pickRunners.size > 0 && !pickRunners.has(runner.key)) continue;
  for (const scenario of await clientScenarios(runner)) {
    const auth = scenario.name.startsWith("auth/");
    if ((only === "nonauth" && auth) || (only === "auth" && !auth)) continue;
    if (pick.size > 0 && !pick.has(scenario.name)) continue;
    for (const revision of revisionsOf(runner, scenario)) tasks.push({ runner, scenario: scenario.name, revision, auth });
  }
}
if (tasks.length === 0) {
  console.error("conformance: no scenario matches CONFORMANCE_ONLY / CONFORMANCE_SCENARIOS / CONFORMANCE_RUNNERS");
  process.exit(2);
}
console.log(`conformance: ${tasks.length} runs (${only}), ${jobs} at a time, client: ${clientCommand}`);
const results = await pool(tasks, jobs, runOne);

const totals = [];
for (const runner of runners) {
  const mine = results.filter((r) => r.runner === runner);
  if (mine.length === 0) continue;
  for (const revision of [...new Set(mine.map((r) => r.revision))].sort()) {
    const rows = mine.filter((r) => r.revision === revision);
    const era = revision === DEFAULT ? (runner.revisions ? "extension scenarios, runner default" : "no version given: client negotiates") : revision;
    console.log(`\n@modelcontextprotocol/conformance ${runner.version}, ${era}`);
    const width = Math.max(...rows.map((r) => r.scenario.length));
    for (const r of rows) {
      console.log(`  ${r.scenario.padEnd(width)}  ${r.result.padEnd(7)}  checks ${r.checks.padEnd(6)} ${(r.ms / 1000).toFixed(1).padStart(5)} s`);
      if (r.result === "FAIL") console.log(`${failureLines(r.output)}\n      (log: ${r.log.slice(root.length + 1)})`);
    }
    const passed = rows.filter((r) => r.result !== "FAIL").length;
    console.log(`  ${passed}/${rows.length} passed`);
  }
  const scenarios = new Set(mine.map((r) => r.scenario));
  const green = [...scenarios].filter((s) => mine.every((r) => r.scenario !== s || r.result !== "FAIL")).length;
  totals.push(`${runner.version}: ${green}/${scenarios.size} scenarios, ${mine.filter((r) => r.result !== "FAIL").length}/${mine.length} runs`);
}
const failed = results.filter((r) => r.result === "FAIL");
const seconds = ((Date.now() - started) / 1000).toFixed(0);
const names = failed.map((r) => `${r.runner.key}:${r.scenario}@${r.revision}`);
const failedList = names.length > 10 ? `${names.slice(0, 10).join(", ")} and ${names.length - 10} more` : names.join(", ");
console.log(
  `\nconformance: ${results.length - failed.length}/${results.length} runs passed in ${seconds} s (${totals.join("; ")})${failed.length ? `; failed: ${failedList}` : ""}`,
);
process.exit(failed.length === 0 ? 0 : 1);
