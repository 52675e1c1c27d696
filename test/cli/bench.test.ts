/**
 * `mcp-switchboard bench`: one machine-readable object with --json; a progress bar only on a terminal
 * (never when piped, never with --json); a latency histogram at the end; failures counted and named.
 */
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { BenchReport } from "../../src/cli/bench-command.js";
import { configFile, echoServer, exec, run } from "./run-cli.js";

const config = configFile({ echo: { command: process.execPath, args: [echoServer] } });

/** Stands in for a terminal on stderr: says it is a TTY and keeps what is drawn. */
function fakeTerminal(): Writable & { drawn: string; isTTY: boolean; columns: number } {
  const terminal = new Writable({
    write(chunk, _encoding, done) {
      terminal.drawn += String(chunk);
      done();
    },
  }) as Writable & { drawn: string; isTTY: boolean; columns: number };
  Object.assign(terminal, { drawn: "", isTTY: true, columns: 120 });
  return terminal;
}

describe("mcp-switchboard bench", () => {
  it("--json: one object with req/s, failures, percentiles and histogram buckets; no bar even on a terminal", async () => {
    const terminal = fakeTerminal();
    const ran = await run(["bench", "echo__echo", '{"text":"x"}', "-n", "300", "--concurrency", "8", "--json", "-c", config], terminal);
    expect(ran.code).toBe(0);
    expect(terminal.drawn).toBe("");
    const report = JSON.parse(ran.out) as BenchReport;
    expect(report).toMatchObject({ tool: "echo__echo", requests: 300, concurrency: 8, failures: 0 });
    expect(report.reqPerSec).toBeCloseTo(300 / report.seconds, 6);
    const { min, p50, p90, p99, max } = report.latencyMs;
    expect([min, p50, p90, p99, max]).toEqual([min, p50, p90, p99, max].sort((a, b) => a - b));
    expect(report.histogram.reduce((sum, b) => sum + b.count, 0)).toBe(300);
    expect(report.histogram[report.histogram.length - 1].leMs).toBeGreaterThanOrEqual(max);
    expect(report.histogram[0].leMs).toBeGreaterThanOrEqual(min);
  });

  it("on a terminal: draws a progress bar while it runs, then prints the summary and histogram", async () => {
    const terminal = fakeTerminal();
    const ran = await run(["bench", "echo__echo", '{"text":"x"}', "-n", "300", "--concurrency", "8", "-c", config], terminal);
    expect(ran.code).toBe(0);
    expect(terminal.drawn).toMatch(/\d+% \| \d+\/300 calls \| [\d,]+ req\/s/);
    expect(terminal.drawn).toContain("\u001b[?25l"); // cursor hidden while drawing ...
    expect(terminal.drawn).toContain("\u001b[?25h"); // ... and shown again
    expect(ran.out).toMatch(/^echo__echo: 300 calls at concurrency 8 in [\d.]+ s$/m);
    expect(ran.out).toMatch(/^ {2}[\d,]+ req\/s, p50 [\d.]+ ms, p99 [\d.]+ ms, 0 failed$/m);
    expect(ran.out).toMatch(/^latency$/m);
    expect(ran.out).toMatch(/^ +≤ [\d.,]+ ms █*[▏▎▍▌▋▊▉]? +\d+ \(\d+\.\d%\)$/m);
    expect(ran.out).toMatch(/^ {2}p50 [\d.]+ ms {3}p90 [\d.]+ ms {3}p99 [\d.]+ ms {3}max [\d.,]+ ms$/m);
  });

  it("piped (no TTY): no bar and no escape codes on stderr; the histogram on stdout", () => {
    const ran = exec("bench", "echo__echo", '{"text":"x"}', "-n", "200", "-c", config);
    expect(ran.code).toBe(0);
    for (const drawn of ["\u001b", "░", "calls |"]) expect(ran.err).not.toContain(drawn);
    expect(ran.out).toMatch(/^latency$/m);
  });

  it("counts failed calls, names the first, and exits 1", async () => {
    const ran = await run(["bench", "echo__fail", "-n", "20", "--json", "-c", config]);
    expect(ran.code).toBe(1);
    const report = JSON.parse(ran.out) as BenchReport;
    expect(report.failures).toBe(20);
    expect(report.firstFailure).toMatch(/this tool always fails/);
  });
});
