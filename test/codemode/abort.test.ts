/**
 * Abort: the run ends within 500 ms of the signal, the engine is interrupted, and the MCP calls in
 * flight are cancelled (the server sees its handlers' signals fire). Calls the code started but never
 * awaited end with the run too.
 */
import { describe, expect, it } from "vitest";
import { codeMode } from "../../src/index.js";
import { waitFor } from "../helpers/processes.js";
import { codeBoards } from "./helpers.js";

const boards = codeBoards();

describe("abort", () => {
  it("aborting while calls are in flight ends the run within 500 ms and cancels each call on its server", async () => {
    const { board, seen } = await boards();
    const code = codeMode(board);
    const controller = new AbortController();
    const running = code.run(`return await Promise.all([tools.math.slow({ ms: 20000 }), tools.math.slow({ ms: 20000 }), tools.math.slow({ ms: 20000 })]);`, {
      signal: controller.signal,
    });
    await waitFor(() => seen.running === 3);
    const began = performance.now();
    controller.abort();
    const out = await running;
    expect(performance.now() - began).toBeLessThan(500);
    expect(out.error).toEqual({ name: "AbortError", message: "the run was aborted" });
    await waitFor(() => seen.cancelled.length === 3, 5_000);
    expect(seen.running).toBe(0);
    expect(out.calls).toHaveLength(0);
    expect(board.status().math.inFlight).toBe(0);
  });

  it("aborting while the code waits on a timer, and a signal aborted before the run", async () => {
    const { board } = await boards();
    const code = codeMode(board);
    const controller = new AbortController();
    const running = code.run(`await new Promise((r) => setTimeout(r, 20000)); return 1;`, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await running).error?.name).toBe("AbortError");
    expect((await code.run(`return 1;`, { signal: AbortSignal.abort() })).error?.name).toBe("AbortError");
  });

  it("a call the code never awaited is cancelled when the run returns", async () => {
    const { board, seen } = await boards();
    const code = codeMode(board);
    const out = await code.run(`void tools.math.slow({ ms: 20000 });\nawait new Promise((r) => setTimeout(r, 50));\nreturn "done";`);
    expect(out.value).toBe("done");
    await waitFor(() => seen.cancelled.length === 1, 5_000);
  });

  it("a run that times out while waiting on a call cancels it too", async () => {
    const { board, seen } = await boards();
    const code = codeMode(board, { timeoutMs: 200 });
    const out = await code.run(`return await tools.math.slow({ ms: 20000 });`);
    expect(out.error?.name).toBe("TimeoutError");
    // On a loaded machine the 200 ms may pass before the call reaches the server; what must hold either
    // way is that no call is left running there: each one that started was cancelled.
    const started = () => seen.calls.filter((call) => call === "math.slow").length;
    await waitFor(() => seen.running === 0 && seen.cancelled.length === started(), 5_000);
  });
});
