// The conformance runners' SERVER scenarios, against the gateway (`npm run conformance:server`, and the end
// of .ci/conformance). The scenarios are written against the reference "everything" server
// (.ci/conformance-runner/everything-server.ts, vendored with the runners). Each run is made twice: directly
// against that server, then through `mcp-switchboard serve` with a board of that one server (qualifyNames:
// false, so its clients see the server's own names). A check that passes directly must pass through the
// gateway (no scenario may fail more checks through it); the exit status is 1 if one does not. Checks the reference server fails itself are printed too,
// with whether the gateway passes them.
//
// Runs: runner 0.1.16 once (its active suite); runner 0.2.0-alpha.12 once per revision in
// CONFORMANCE_SERVER_REVISIONS (default 2025-11-25 and 2026-07-28, its active suite at that revision),
// plus the 2026-07-28 scenarios named in CONFORMANCE_SERVER_EXTRA (default server-stateless, caching and
// the input-required-result-* (MRTR) ones, which the runner keeps out of its active suite).
// Logs: .scratch/conformance-server/.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const runnerDir = join(root, ".ci/conformance-runner");
const node22 = join(runnerDir, "node_modules/node/bin/node");
const logRoot = join(root, ".scratch/conformance-server");
const revisions = (process.env.CONFORMANCE_SERVER_REVISIONS ?? "2025-11-25,2026-07-28").split(",").filter(Boolean);
// The MRTR scenarios: through the gateway, the reference server's input requests reach the runner in
// the gateway's own input_required rounds (src/gateway/input-required.ts).
const MRTR = [
  "basic-elicitation",
  "basic-list-roots",
  "basic-sampling",
  "capability-check",
  "ignore-extra-params",
  "missing-input-response",
  "multi-round",
  "multiple-input-requests",
  "non-tool-request",
  "request-state",
  "result-type",
  "tampered-state",
  "unsupported-methods",
  "validate-input",
].map((name) => `input-required-result-${name}`);
const extra = (process.env.CONFORMANCE_SERVER_EXTRA ?? ["server-stateless", "caching", ...MRTR].join(",")).split(",").filter(Boolean);
// server-stateless's test_streaming_elicitation check is answered by the reference server as
// newline-delimited JSON under application/json, which the board's transport reads message by message
// (src/transports/deliver.ts). Two of its SHOULD checks are warnings through the gateway: they need the
// reference server's list changes to reach the gateway on its listen stream, written the same way.
// A run at a 2025 revision goes through a gateway whose board speaks the 2025 era to the reference server
// (`protocol: "legacy"`), a 2026 run through one that negotiates (it gets the 2026 era). The reference
// server serves both eras, but its 2026 path runs test_sampling and the elicitation tools on an in-memory
// client of its own with no handlers (they answer -32601 before the board is asked): a board that speaks
// 2026 to it cannot pass those 2025 scenarios through, however the gateway forwards server requests.
const legacy = (revision) => !revision.startsWith("2026");
const runs = [
  { label: "0.1.16", entry: "conformance-0.1", args: [], legacy: true },
  ...revisions.map((revision) => ({
    label: `0.2.0-alpha.12 @ ${revision}`,
    entry: "conformance-0.2",
    args: ["--spec-version", revision],
    legacy: legacy(revision),
  })),
  ...extra.map((scenario) => ({
    label: `0.2.0-alpha.12 @ 2026-07-28, ${scenario}`,
    entry: "conformance-0.2",
    args: ["--spec-version", "2026-07-28", "--scenario", scenario],
  })),
];

function freePort() {
  return new Promise((done, fail) => {
    const server = createServer().once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

/** Starts a long-running process and resolves once `ready` matches its output (or rejects after 60 s). */
function start(name, command, args, env, ready) {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const guard = setTimeout(() => fail(new Error(`${name} did not start in 60 s:\n${output}`)), 60_000);
    const look = (chunk) => {
      output += chunk;
      if (ready.test(output)) {
        clearTimeout(guard);
        done(child);
      }
    };
    child.stdout.on("data", look);
    child.stderr.on("data", look);
    child.once("exit", (code) => {
      clearTimeout(guard);
      fail(new Error(`${name} exited (${code}) before it was ready:\n${output}`));
    });
  });
}

function runRunner(run, url) {
  return new Promise((done) => {
    const child = spawn(node22, [join(runnerDir, "node_modules", run.entry, "dist/index.js"), "server", "--url", url, ...run.args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const guard = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("close", () => {
      clearTimeout(guard);
      const scenarios = new Map();
      for (const [, name, passed, failed] of output.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed/gm))
        scenarios.set(name, { passed: Number(passed), failed: Number(failed) });
      // A run of one scenario prints no summary, only its checks' totals.
      const single = /^Passed: (\d+)\/(\d+), (\d+) failed/m.exec(output);
      const named = run.args.indexOf("--scenario");
      if (scenarios.size === 0 && single !== null && named >= 0) scenarios.set(run.args[named + 1], { passed: Number(single[1]), failed: Number(single[3]) });
      done({ output, scenarios });
    });
  });
}

const total = (result) => {
  let passed = 0;
  let all = 0;
  for (const { passed: p, failed: f } of result.scenarios.values()) {
    passed += p;
    all += p + f;
  }
  return { passed, all };
};

const started = Date.now();
const children = [];
const scratch = mkdtempSync(join(tmpdir(), "conformance-server-"));
let status = 0;
try {
  const upstreamPort = await freePort();
  children.push(
    await start(
      "the reference server",
      node22,
      [join(runnerDir, "node_modules/tsx/dist/cli.mjs"), join(runnerDir, "everything-server.ts")],
      { PORT: String(upstreamPort) },
      /Test Server running/,
    ),
  );
  const gatewayPorts = {};
  for (const era of ["legacy", "auto"]) {
    const config = join(scratch, `mcp.${era}.json`);
    const server = { url: `http://localhost:${upstreamPort}/mcp`, ...(era === "legacy" ? { protocol: "legacy" } : {}) };
    writeFileSync(config, JSON.stringify({ mcpServers: { everything: server }, gateway: { qualifyNames: false } }));
    gatewayPorts[era] = await freePort();
    children.push(
      await start(
        `the gateway (${era})`,
        process.execPath,
        ["--import", "tsx", join(root, "src/cli/main.ts"), "serve", config, "--port", String(gatewayPorts[era])],
        {},
        /Serving 1 server/,
      ),
    );
  }
  const direct = { passed: 0, all: 0 };
  const through = { passed: 0, all: 0 };
  mkdirSync(logRoot, { recursive: true });
  for (const run of runs) {
    const a = await runRunner(run, `http://localhost:${upstreamPort}/mcp`);
    const b = await runRunner(run, `http://localhost:${gatewayPorts[run.legacy ? "legacy" : "auto"]}/mcp`);
    const slug = run.label.replace(/[^\w.-]+/g, "_");
    writeFileSync(join(logRoot, `${slug}.direct.log`), a.output);
    writeFileSync(join(logRoot, `${slug}.gateway.log`), b.output);
    const [ta, tb] = [total(a), total(b)];
    direct.passed += ta.passed;
    direct.all += ta.all;
    through.passed += tb.passed;
    through.all += tb.all;
    console.log(`\n@modelcontextprotocol/conformance ${run.label}: ${ta.passed}/${ta.all} direct, ${tb.passed}/${tb.all} through the gateway`);
    if (a.scenarios.size === 0) {
      console.log(`  the direct run reported no scenarios (log: .scratch/conformance-server/${slug}.direct.log)`);
      status = 1;
    }
    for (const [name, d] of a.scenarios) {
      const g = b.scenarios.get(name) ?? { passed: 0, failed: d.passed + d.failed };
      // Failed checks, not passed ones, are compared: the runner grades some optional behaviour INFO or
      // WARNING (e.g. answering tools/list with JSON rather than an event stream), which is no failure.
      const mark = g.failed > d.failed ? "WORSE" : g.passed < d.passed ? "INFO" : "";
      if (mark === "WORSE") status = 1;
      if (d.failed > 0 || mark !== "")
        console.log(
          `  ${mark.padEnd(7)} ${name.padEnd(40)} direct ${d.passed}/${d.passed + d.failed}, gateway ${g.passed}/${g.passed + g.failed}${mark === "INFO" ? " (optional behaviour graded INFO/WARNING)" : ""}`,
        );
    }
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`\nserver scenarios: ${direct.passed}/${direct.all} direct, ${through.passed}/${through.all} through the gateway (${seconds} s)`);
  if (status !== 0) console.log("a check that passes directly fails through the gateway (WORSE above); logs in .scratch/conformance-server/");
} catch (error) {
  console.error(`conformance server scenarios: ${error.message}`);
  status = 1;
} finally {
  for (const child of children) child.kill("SIGTERM");
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(status);
