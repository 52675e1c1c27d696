/**
 * `mcp-switchboard bench`: call one tool many times at a fixed concurrency; a live progress bar on a
 * terminal (cli-progress, redrawn from a 10 Hz poll of a counter, so nothing runs per call), then
 * req/s, failures and a latency histogram; `--json` prints one object instead and never draws a bar.
 */
import { SingleBar } from "cli-progress";
import type { Switchboard } from "../switchboard/switchboard.js";
import type { Output } from "./commands.js";
import { histogram, renderHistogram, summariseLatency, type Bucket, type LatencySummary } from "./histogram.js";
import { runLoad, type LoadProgress } from "./load.js";

export interface BenchReport {
  tool: string;
  requests: number;
  concurrency: number;
  seconds: number;
  reqPerSec: number;
  failures: number;
  /** The first failure's message, when a call failed. */
  firstFailure?: string;
  latencyMs: LatencySummary;
  histogram: Bucket[];
}

export interface BenchOptions {
  requests: number;
  concurrency: number;
  json: boolean;
}

export async function benchCommand(board: Switchboard, io: Output, name: string, args: Record<string, unknown>, options: BenchOptions): Promise<number> {
  const { requests, concurrency, json } = options;
  await board.callTool(name, args); // warm up, and fail early on a wrong name
  const progress: LoadProgress = { done: 0 };
  const stopBar = json || !io.progress ? () => {} : showProgress(io.progress, requests, progress);
  let load;
  try {
    load = await runLoad(requests, concurrency, () => board.callTool(name, args, { throwOnError: true }), progress);
  } finally {
    stopBar();
  }
  const sorted = load.latenciesMs.sort((a, b) => a - b);
  const report: BenchReport = {
    tool: name,
    requests,
    concurrency,
    seconds: load.seconds,
    reqPerSec: requests / load.seconds,
    failures: load.failures,
    ...(load.failures > 0 ? { firstFailure: (load.firstError as Error)?.message ?? String(load.firstError) } : {}),
    latencyMs: summariseLatency(sorted),
    histogram: histogram(sorted),
  };
  if (json) io.out(JSON.stringify(report, null, 2));
  else for (const line of renderReport(report)) io.out(line);
  return load.failures > 0 ? 1 : 0;
}

export function renderReport(report: BenchReport): string[] {
  const { latencyMs: l } = report;
  return [
    `${report.tool}: ${report.requests} calls at concurrency ${report.concurrency} in ${report.seconds.toFixed(2)} s`,
    `  ${Math.round(report.reqPerSec).toLocaleString("en-US")} req/s, p50 ${l.p50.toFixed(2)} ms, p99 ${l.p99.toFixed(2)} ms, ${report.failures} failed${report.firstFailure ? ` (first: ${report.firstFailure})` : ""}`,
    "",
    ...renderHistogram(report.histogram, l),
  ];
}

/** Draws the bar on `stream` (a terminal) until the returned function is called. */
function showProgress(stream: NodeJS.WritableStream, total: number, progress: LoadProgress): () => void {
  const bar = new SingleBar({
    stream,
    format: "{bar} {percentage}% | {value}/{total} calls | {rate} req/s | ETA {eta_formatted}",
    barCompleteChar: "█",
    barIncompleteChar: "░",
    hideCursor: true,
    clearOnComplete: true,
    fps: 10,
  });
  const started = performance.now();
  bar.start(total, 0, { rate: 0 });
  const poll = setInterval(
    () => bar.update(progress.done, { rate: Math.round(progress.done / ((performance.now() - started) / 1000)).toLocaleString("en-US") }),
    100,
  );
  return () => {
    clearInterval(poll);
    bar.update(progress.done);
    bar.stop();
  };
}
