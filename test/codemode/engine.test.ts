/**
 * The engine as a worker uses it, run here on the test's own thread: a module of its own whose
 * WebAssembly memory is capped ends a bomb as out of memory and says the module is broken (the worker
 * then asks to be replaced), and the `stopped` poll ends a busy loop as an abort.
 */
import { describe, expect, it } from "vitest";
import { BASE_MEMORY_BYTES, boundedModule, runInEngine, type EngineLimits } from "../../src/codemode/engine.js";
import { stripTypes } from "../../src/codemode/strip.js";

const LIMITS: EngineLimits = { timeoutMs: 20_000, memoryLimitBytes: 16 * 1024 * 1024, maxStackBytes: 256 * 1024, maxLogChars: 1_000 };
const noCalls = () => Promise.resolve(JSON.stringify({ ok: false, name: "Error", message: "no tools here" }));

function compiled(source: string): string {
  const out = stripTypes(source);
  if (!out.ok) throw new Error(out.message);
  return out.code;
}

describe("engine settings", () => {
  it("a capped module: a bomb of filled arrays ends as out of memory, marked broken, the memory at its cap", async () => {
    const module = await boundedModule(LIMITS.memoryLimitBytes);
    const signal = new AbortController().signal;
    const bomb = compiled("const a = [];\nwhile (true) a.push(new Array(100000).fill(1));");
    const out = await runInEngine(bomb, "{}", noCalls, LIMITS, signal, { module });
    expect(out.outcome).toMatchObject({ ok: false, message: expect.stringMatching(/out of memory/i) });
    expect(out.broken).toBe(true);
    const memory = (module.getWasmMemory() as unknown as { buffer: ArrayBuffer }).buffer.byteLength;
    expect(memory).toBeLessThanOrEqual(BASE_MEMORY_BYTES + LIMITS.memoryLimitBytes);
    // A fresh module runs the next program as usual, and a normal run is not broken.
    const next = await runInEngine(compiled("return 6 * 7;"), "{}", noCalls, LIMITS, signal, { module: await boundedModule(LIMITS.memoryLimitBytes) });
    expect(next.outcome).toEqual({ ok: true, valueText: "42" });
    expect(next.broken).toBeUndefined();
  });

  it("the stopped poll ends a busy loop as an abort, long before the deadline", async () => {
    const module = await boundedModule(LIMITS.memoryLimitBytes);
    const began = performance.now();
    let polls = 0;
    const out = await runInEngine(compiled("while (true) {}"), "{}", noCalls, LIMITS, new AbortController().signal, { module, stopped: () => ++polls > 50 });
    expect(out.outcome).toMatchObject({ ok: false, name: "AbortError" });
    expect(performance.now() - began).toBeLessThan(10_000);
  });
});
