/**
 * 1,000 runs leave the heap where it started: measured in a child process with --expose-gc (a full
 * collection before each reading), not by timing. Each run builds and frees its own runtime.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const run = promisify(execFile);
const child = fileURLToPath(new URL("./fixtures/heap-runs.ts", import.meta.url));

it("1,000 runs with a tool call each: heap and external memory back where they started (within 2 MiB)", async () => {
  const { stdout } = await run(process.execPath, ["--expose-gc", "--import", "tsx", child, "1000"], { timeout: 120_000 });
  const result = JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, number>;
  expect(result.failures).toBe(0);
  expect(result.heapAfter - result.heapBefore).toBeLessThan(2 * 1024 * 1024);
  expect(result.externalAfter - result.externalBefore).toBeLessThan(2 * 1024 * 1024);
}, 130_000);
