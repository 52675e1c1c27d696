/**
 * Draws every benchmark's results (docs/bench/<bench>.json) as an SVG bar chart beside it
 * (docs/bench/<bench>.svg). `npm run bench` runs it at the end; alone: `npx tsx bench/charts.ts`.
 */
import { readdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describeMachine, readResult, RESULTS_DIR } from "./lib/results.js";
import { renderChart } from "./lib/svg-chart.js";

export function drawCharts(): string[] {
  const written: string[] = [];
  for (const file of readdirSync(RESULTS_DIR)
    .filter((name) => name.endsWith(".json"))
    .sort()) {
    const result = readResult(file.slice(0, -".json".length));
    if (!result?.chart) continue;
    const svg = `${RESULTS_DIR}${result.bench}.svg`;
    writeFileSync(
      svg,
      renderChart(result.chart, `${result.date.slice(0, 10)}, ${describeMachine(result.machine)}, ${result.runtime ?? "src (through tsx)"}; ${result.method}`),
    );
    written.push(svg);
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const written = drawCharts();
  console.log(
    written.length > 0
      ? `Charts: ${written.map((f) => f.slice(RESULTS_DIR.length)).join(", ")} in docs/bench/`
      : "No results in docs/bench/ yet: run npm run bench first",
  );
}
