/**
 * Runs execute off the host's event loop, in the pool's worker threads: a busy loop or a memory bomb
 * leaves the host's timers ticking, bombs end as out of memory, an abort stops a busy loop, a worker
 * that dies fails its run with a WorkerError and the next run works, and many runs at once all come
 * back right. Each test asks for its own pool size, so a killed worker is one of this test's.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { describe, expect, it } from "vitest";
import { codeMode } from "../../src/index.js";
import { sharedPool } from "../../src/codemode/pool.js";
import { waitFor } from "../helpers/processes.js";
import { codeBoards } from "./helpers.js";

const boards = codeBoards();

/** What the host's event loop did while `run` was going: timer ticks and the worst delay (ms). */
async function watchLoop<T>(run: () => Promise<T>): Promise<{ value: T; ticks: number; maxDelayMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  let ticks = 0;
  const interval = setInterval(() => ticks++, 10);
  histogram.enable();
  try {
    const value = await run();
    return { value, ticks, maxDelayMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
    clearInterval(interval);
  }
}

describe("code mode in worker threads", () => {
  it("a busy loop runs to its deadline while the host's timers keep ticking", async () => {
    const { board } = await boards();
    const code = codeMode(board, { workers: 5, timeoutMs: 1_500 });
    await code.run("return 1;"); // the worker is up before the watch starts
    const { value: out, ticks, maxDelayMs } = await watchLoop(() => code.run("while (true) {}"));
    expect(out.error?.name).toBe("TimeoutError");
    // In the host's thread the loop allowed no tick for 1.5 s; in a worker the 10 ms timer keeps going.
    expect(ticks).toBeGreaterThan(20);
    expect(maxDelayMs).toBeLessThan(1_000);
  });

  it("array, string, object and typed-array bombs end with an error while the host keeps ticking; the next run works", async () => {
    const { board } = await boards();
    const code = codeMode(board, { workers: 6, memoryLimitBytes: 32 * 1024 * 1024, timeoutMs: 20_000 });
    await code.run("return 1;");
    const bombs = {
      arrays: "const a = [];\nwhile (true) a.push(new Array(100000).fill(1));",
      strings: "const a = []; let i = 0;\nwhile (true) a.push('x'.repeat(100000) + i++);",
      objects: "const o = {}; let i = 0;\nwhile (true) o['k' + i] = { i: i++, s: 'v' + i };",
      typed: "const a = [];\nwhile (true) a.push(new Uint8Array(1 << 20));",
    };
    const before = process.memoryUsage().rss;
    for (const [kind, source] of Object.entries(bombs)) {
      const began = performance.now();
      const { value: out, ticks } = await watchLoop(() => code.run(source));
      // Typed arrays are not in the engine at all; the other three hit the capped memory.
      if (kind === "typed") expect(out.error, kind).toMatchObject({ name: "ReferenceError", line: 2 });
      else expect(out.error?.message, kind).toMatch(/out of memory/i);
      // Well under the 20 s deadline: the cap, not the clock, ended it.
      expect(performance.now() - began, kind).toBeLessThan(10_000);
      if (kind !== "typed") expect(ticks, kind).toBeGreaterThan(0);
    }
    // Without the cap, the arrays alone grew the process by 1.5 GB; bench/codemode.ts measures it closely.
    expect(process.memoryUsage().rss - before).toBeLessThan(400 * 1024 * 1024);
    expect((await code.run("return [1, 2, 3].length;")).value).toBe(3);
  });

  it("an abort stops a busy loop at once, and Atomics.wait cannot block the host", async () => {
    const { board } = await boards();
    const code = codeMode(board, { workers: 7, timeoutMs: 20_000 });
    await code.run("return 1;");
    const controller = new AbortController();
    const running = code.run("while (true) {}", { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const began = performance.now();
    expect((await running).error?.name).toBe("AbortError");
    expect(performance.now() - began).toBeLessThan(5_000);
    const { value: waited, maxDelayMs } = await watchLoop(() =>
      code.run("const cell = new Int32Array(new SharedArrayBuffer(4));\ntry { return Atomics.wait(cell, 0, 0, 1000); } catch (e) { return e.name; }", {}),
    );
    // The engine may refuse to block, or block its own worker until the wait's timeout: never the host.
    expect(["TypeError", "timed-out", "RangeError", "ReferenceError", "InternalError"]).toContain(waited.value ?? waited.error?.name);
    expect(maxDelayMs).toBeLessThan(900);
  });

  it("a worker that dies fails its run with a WorkerError; the next run works and nothing carries over", async () => {
    const { board } = await boards();
    const code = codeMode(board, { workers: 1 });
    expect((await code.run("globalThis.leak = 42; Object.prototype.polluted = 1; return 1;")).value).toBe(1);
    expect((await code.run("return [typeof leak, typeof ({}).polluted];")).value).toEqual(["undefined", "undefined"]);
    const pool = sharedPool(1);
    const running = code.run("return await tools.math.slow({ ms: 20000 });");
    await waitFor(() => pool.workers.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await pool.workers[0].terminate();
    const out = await running;
    expect(out.error?.name).toBe("WorkerError");
    expect((await code.run("return await tools.math.add({ a: 2, b: 3 });")).value).toBe("5");
  });

  it("32 runs at once, 3 calls each, on 2 workers: every answer is right and the pool drains", async () => {
    const { board } = await boards();
    const code = codeMode(board, { workers: 2 });
    const runs = Array.from({ length: 32 }, (_, i) =>
      code.run(
        `const [x, y, z] = await Promise.all([tools.math.add({ a: ${i}, b: 1 }), tools.math.add({ a: ${i}, b: 2 }), tools.math.add({ a: ${i}, b: 3 })]);\nreturn [x, y, z];`,
      ),
    );
    const outs = await Promise.all(runs);
    outs.forEach((out, i) => {
      expect(out.error, `run ${i}`).toBeUndefined();
      expect(out.value).toEqual([String(i + 1), String(i + 2), String(i + 3)]);
      expect(out.calls).toHaveLength(3);
    });
    expect(sharedPool(2).workers.length).toBeLessThanOrEqual(2);
  });

  it("workers must be a whole number from 1 to 256", async () => {
    const { board } = await boards();
    expect(() => codeMode(board, { workers: 0 })).toThrow(/workers|whole number/);
    expect(() => codeMode(board, { workers: 1.5 })).toThrow(/whole number/);
  });
});
