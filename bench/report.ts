/**
 * The README's benchmark tables, in markdown, from the results in docs/bench/ (so the README shows the
 * numbers of one run, the same the charts draw): `npx tsx bench/report.ts` after `npm run bench`.
 */
import { existsSync, readFileSync } from "node:fs";
import { readResult, RESULTS_DIR, type BenchResult } from "./lib/results.js";
import { format, table } from "./lib/stats.js";
import { thresholdText, type Target } from "./lib/targets.js";

const OURS = "mcp-switchboard";

/** server x concurrency rows, a req/s column per client, then ours ÷ each other client. */
function matrixTable(result: BenchResult): string {
  const clients = [...new Set(result.rows.map((r) => String(r.client)))];
  const cells = new Map<string, Map<string, Record<string, string | number>>>();
  for (const row of result.rows) {
    const key = `${row.server}\u0000${row.concurrency}`;
    if (!cells.has(key)) cells.set(key, new Map());
    cells.get(key)!.set(String(row.client), row);
  }
  const others = clients.filter((c) => c !== OURS);
  const headers = [
    "server",
    "concurrency",
    ...clients.map((c) => `${c} req/s`),
    ...others.map((c) => (c.includes("Switchboard") ? `${c} ÷ ours` : `ours ÷ ${c}`)),
  ];
  const rows = [...cells].map(([key, byClient]) => {
    const [server, concurrency] = key.split("\u0000");
    const ours = Number(byClient.get(OURS)?.reqPerSec);
    const rate = (client: string) => Number(byClient.get(client)?.reqPerSec);
    return [
      server,
      concurrency,
      ...clients.map((c) => format(rate(c))),
      ...others.map((c) => `${(c.includes("Switchboard") ? rate(c) / ours : ours / rate(c)).toFixed(2)}x`),
    ];
  });
  return table(headers, rows);
}

function section(bench: string, render: (result: BenchResult) => string): void {
  const result = readResult(bench);
  if (!result) return void console.log(`<!-- ${bench}: no results in docs/bench/ -->\n`);
  console.log(`**${result.title}** (\`${bench}\`; ${result.method})\n`);
  console.log(render(result));
  console.log(`\n![${result.title}](docs/bench/${bench}.svg)\n`);
}

const targetsFile = `${RESULTS_DIR}targets.json`;
if (existsSync(targetsFile)) {
  const { targets } = JSON.parse(readFileSync(targetsFile, "utf8")) as { targets: (Target & { measured: string; verdict: string })[] };
  console.log(
    table(
      ["target (issue #15)", "measured", "threshold", "verdict"],
      targets.map((t) => [t.what, t.measured, thresholdText(t), t.verdict === "NOT met" ? "**NOT met**" : t.verdict]),
    ),
  );
  console.log();
}
for (const bench of ["stdio-throughput", "http-throughput", "ws-throughput", "modern-throughput"]) section(bench, matrixTable);
section("many-servers", (r) =>
  table(
    ["client", "start all servers (ms)", "req/s", "p50 ms", "p99 ms"],
    r.rows.map((row) => [String(row.client), Number(row.startMs), Number(row.reqPerSec), Number(row.p50Ms), Number(row.p99Ms)]),
  ),
);
section("switchboard-scale", (r) =>
  table(
    ["servers", "start all (ms)", "listTools, all (ms)", "stop all (ms)", "heap per connection"],
    r.rows.map((row) => [
      ...[row.servers, row.startMs, row.listMs, row.stopMs].map((n) => Number(n).toLocaleString("en-US")),
      `${(Number(row.bytesPerConnection) / 1024).toFixed(1)} KiB`,
    ]),
  ),
);
section("pending-memory", (r) =>
  table(
    ["in flight", "bytes per pending request", "back to baseline after cancelling all"],
    r.rows.map((row) => [Number(row.pending).toLocaleString("en-US"), Number(row.bytesPerRequest), String(row.backToBaseline) === "true" ? "yes" : "no"]),
  ),
);
