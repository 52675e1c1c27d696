/**
 * `npm run bench`: every benchmark, each in its own Node process (with --expose-gc, so memory numbers
 * are honest and one benchmark's heap never skews the next). Pass names to run a subset:
 * `npm run bench -- stdio-throughput pending-memory`.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ALL = [
  "pending-memory",
  "stdio-throughput",
  "http-throughput",
  "ws-throughput",
  "modern-throughput",
  "switchboard-scale",
];

const wanted = process.argv.slice(2);
const names = wanted.length > 0 ? wanted : ALL;
let failed = 0;
for (const name of names) {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  if (!existsSync(file)) {
    if (wanted.length > 0) {
      console.error(`No benchmark named ${name} (bench/${name}.ts)`);
      failed++;
    }
    continue;
  }
  const run = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", file], { stdio: "inherit" });
  if (run.status !== 0) {
    console.error(`bench/${name}.ts failed (exit ${run.status ?? run.signal})`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
