/**
 * One run in a fresh QuickJS runtime (WebAssembly): its own heap, capped by `memoryLimitBytes`, its
 * own stack cap, and an interrupt handler that stops even `while (true) {}` at the deadline or on
 * abort. The sync engine is used, with the engine's promise jobs pumped after each host event (a
 * tool's answer, a timer): unlike the asyncified build it lets many tool calls be in flight at once.
 * A runtime per run costs ~0.3 ms (bench/codemode.ts measures it against a pooled one) and leaves no
 * state behind for the next run. Every handle the host holds is released before the runtime is freed.
 * Code mode runs it inside a worker thread (worker.ts), in a module whose memory is capped
 * (`boundedModule`); the bench also runs it on the main thread, as it ran before, to compare.
 */
import {
  DefaultIntrinsics,
  newQuickJSWASMModule,
  newVariant,
  RELEASE_SYNC,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from "quickjs-emscripten";
import { FIRST_LINE, PRELUDE } from "./prelude.js";

export interface EngineLimits {
  timeoutMs: number;
  memoryLimitBytes: number;
  maxStackBytes: number;
  /** Characters of logs kept; the rest is counted. */
  maxLogChars: number;
}

/** What the engine asks the host: one tool call, arguments and answer as JSON text. */
export type HostCall = (server: string, tool: string, argsText: string) => Promise<string>;

export type EngineOutcome = { ok: true; valueText: string } | { ok: false; name: string; message: string; line: number | undefined };

export interface EngineRun {
  outcome: EngineOutcome;
  logs: string[];
  /** The run left the module's memory in a state that cannot be trusted (out of memory, a host-side break): drop the module. */
  broken?: boolean;
}

/** How a caller other than the run's signal stops it (a worker's shared flag, read in the interrupt handler). */
export interface EngineSettings {
  /** The module to run in (default: the process's shared one, `quickJS()`). */
  module?: QuickJSWASMModule | undefined;
  /** Polled while the code computes: true stops the run as aborted, even inside a busy loop. */
  stopped?: (() => boolean) | undefined;
}

/** The runtime's WebAssembly API (typed here: the project's libraries leave out the DOM's declarations). */
const wasm = (globalThis as unknown as { WebAssembly: { Memory: new (size: { initial: number; maximum: number }) => object } }).WebAssembly;

/** What every WebAssembly memory starts at (the build's own initial size). */
export const BASE_MEMORY_BYTES = 16 * 1024 * 1024;

/**
 * A module of its own whose WebAssembly memory cannot grow past `BASE_MEMORY_BYTES + memoryLimitBytes`.
 * QuickJS's own limit undercounts in this build (no malloc_usable_size: a loop of `new Array(1e5).fill(1)`
 * grew the process by 1.5 GB in 9 s under a 32 MiB limit), but a malloc past the memory's maximum fails
 * at once, so every bomb (arrays, strings, objects, typed arrays) ends as "out of memory" within about a
 * second, holding no more than the cap.
 */
export function boundedModule(memoryLimitBytes: number): Promise<QuickJSWASMModule> {
  const page = 65_536;
  const maximum = Math.ceil((BASE_MEMORY_BYTES + memoryLimitBytes) / page);
  const wasmMemory = new wasm.Memory({ initial: BASE_MEMORY_BYTES / page, maximum });
  return newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory }));
}

let module: Promise<QuickJSWASMModule> | undefined;

/**
 * The WebAssembly module, loaded once (~25 ms) and shared by every run's runtime; loaded again after a
 * run broke out of it abnormally (the host's own stack overflowing inside WebAssembly, say), since
 * its memory can no longer be trusted.
 */
export function quickJS(): Promise<QuickJSWASMModule> {
  module ??= newQuickJSWASMModule().catch((error: unknown) => {
    module = undefined;
    throw error;
  });
  return module;
}

export async function runInEngine(
  code: string,
  catalog: string,
  hostCall: HostCall,
  limits: EngineLimits,
  signal: AbortSignal,
  settings: EngineSettings = {},
): Promise<EngineRun> {
  const qjs = settings.module ?? (await quickJS());
  return new Promise((resolve) => new Session(qjs, limits, signal, hostCall, resolve, settings.stopped).start(code, catalog));
}

class Session {
  private readonly runtime: QuickJSRuntime;
  private readonly context: QuickJSContext;
  private readonly deadline: number;
  private readonly pending = new Set<QuickJSDeferredPromise>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly logs: string[] = [];
  private logChars = 0;
  private droppedChars = 0;
  private main: QuickJSHandle | undefined;
  private outcome: EngineOutcome | undefined;
  private busy = false;
  private disposed = false;
  private tainted = false;
  private overgrown = false;
  private halted = false;
  private readonly qjs: QuickJSWASMModule;
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onAbort = () => this.end({ ok: false, name: "AbortError", message: "the run was aborted", line: undefined });

  constructor(
    qjs: QuickJSWASMModule,
    private readonly limits: EngineLimits,
    private readonly signal: AbortSignal,
    private readonly hostCall: HostCall,
    private readonly resolve: (run: EngineRun) => void,
    private readonly stopped: (() => boolean) | undefined,
  ) {
    this.qjs = qjs;
    this.deadline = performance.now() + limits.timeoutMs;
    this.runtime = qjs.newRuntime();
    this.runtime.setMemoryLimit(limits.memoryLimitBytes);
    this.runtime.setMaxStackSize(limits.maxStackBytes);
    // QuickJS's own limit undercounts in this build (no malloc_usable_size: 37 500 arrays of 100 numbers
    // fit under an 8 MiB limit), so the module's WebAssembly memory is watched too: growing past twice
    // the limit over where this run started stops it as out of memory, and the module is replaced.
    const memory = qjs.getWasmMemory() as unknown as { buffer: ArrayBuffer };
    const ceiling = memory.buffer.byteLength + 2 * limits.memoryLimitBytes;
    this.runtime.setInterruptHandler(() => {
      if (memory.buffer.byteLength > ceiling) this.overgrown = true;
      if (this.stopped?.() === true) this.halted = true;
      return this.overgrown || this.halted || this.outcome !== undefined || performance.now() > this.deadline;
    });
    // Typed arrays are left out: their buffers escape the memory limit in this build (measured: a loop of
    // 1 MiB Uint8Arrays grew the process by 2 GB under an 8 MiB limit), and code mode moves JSON only.
    this.context = this.runtime.newContext({ intrinsics: { ...DefaultIntrinsics, TypedArrays: false } });
    // While the code waits on the host nothing runs in the engine, so the deadline needs a host timer too.
    this.timer = setTimeout(() => this.end(this.timedOut()), limits.timeoutMs);
    this.timer.unref?.();
    signal.addEventListener("abort", this.onAbort, { once: true });
  }

  start(code: string, catalog: string): void {
    if (this.signal.aborted) return this.onAbort();
    this.step(() => {
      const ctx = this.context;
      const setup = ctx.unwrapResult(ctx.evalCode(PRELUDE, "prelude.js"));
      const fns = [
        ctx.newFunction("call", (server, tool, args) => this.call(ctx.getString(server), ctx.getString(tool), ctx.getString(args))),
        ctx.newFunction("log", (level, text) => this.log(ctx.getString(level), ctx.getString(text))),
        ctx.newFunction("sleep", (ms) => this.sleep(ctx.getNumber(ms))),
        ctx.newString(catalog),
      ];
      const runner = ctx.unwrapResult(ctx.callFunction(setup, ctx.undefined, ...fns));
      for (const handle of [setup, ...fns]) handle.dispose();
      const compiled = ctx.evalCode(code, "code.js", { strict: true });
      if (compiled.error) {
        runner.dispose();
        const error = compiled.error.consume((handle) => ctx.dump(handle) as unknown);
        return this.end(this.failure(error));
      }
      const main = compiled.value;
      const started = ctx.callFunction(runner, ctx.undefined, main);
      runner.dispose();
      main.dispose();
      this.main = ctx.unwrapResult(started);
    });
  }

  /** Runs engine work, then the jobs it queued, then settles the run if the code is done. */
  private step(work: () => void): void {
    if (this.outcome !== undefined) return;
    this.busy = true;
    try {
      work();
      const jobs = this.runtime.executePendingJobs();
      if (jobs.error) jobs.error.dispose();
      if (this.halted) this.onAbort();
      else if (this.overgrown || performance.now() > this.deadline) this.end(this.timedOut());
      else this.settleIfDone();
    } catch (error) {
      // The engine stopped somewhere other than a JavaScript exception: its heap is in an unknown state.
      this.tainted = true;
      this.end(this.hostFailure(error));
    } finally {
      this.busy = false;
    }
    if (this.outcome !== undefined) this.dispose();
  }

  private settleIfDone(): void {
    if (this.main === undefined) return;
    const state = this.context.getPromiseState(this.main);
    if (state.type === "pending") return;
    if (state.type === "rejected") {
      const error = state.error.consume((handle) => this.context.dump(handle) as unknown);
      return this.end(this.failure(error));
    }
    const text = state.value.consume((handle) => (this.context.typeof(handle) === "string" ? this.context.getString(handle) : undefined));
    if (text === undefined) return this.end({ ok: false, name: "Error", message: "the run ended without a result", line: undefined });
    let reply: { ok: boolean; value?: unknown; name?: string; message?: string; stack?: string };
    try {
      reply = JSON.parse(text) as typeof reply;
    } catch {
      return this.end({ ok: false, name: "Error", message: "the run's result could not be read", line: undefined });
    }
    if (reply.ok) return this.end({ ok: true, valueText: JSON.stringify(reply.value) });
    this.end({ ok: false, name: reply.name ?? "Error", message: reply.message ?? "", line: lineOf(reply.stack) });
  }

  private call(server: string, tool: string, args: string): QuickJSHandle {
    const deferred = this.context.newPromise();
    this.pending.add(deferred);
    const failed = (error: unknown) => JSON.stringify({ ok: false, name: "Error", message: `tools.${server}.${tool}: ${String(error)}` });
    void this.hostCall(server, tool, args)
      .then(undefined, failed)
      .then((reply) => {
        if (this.outcome !== undefined) return;
        this.pending.delete(deferred);
        this.step(() => this.context.newString(reply).consume((handle) => deferred.resolve(handle)));
      });
    return deferred.handle;
  }

  private sleep(ms: number): QuickJSHandle {
    const deferred = this.context.newPromise();
    this.pending.add(deferred);
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.pending.delete(deferred);
        this.step(() => deferred.resolve());
      },
      Math.min(Math.max(0, ms), this.limits.timeoutMs),
    );
    this.timers.add(timer);
    return deferred.handle;
  }

  private log(level: string, text: string): void {
    const line = level === "log" ? text : `[${level}] ${text}`;
    const room = this.limits.maxLogChars - this.logChars;
    if (room <= 0) {
      this.droppedChars += line.length;
      return;
    }
    const kept = line.length > room ? line.slice(0, room) : line;
    this.droppedChars += line.length - kept.length;
    this.logChars += kept.length;
    this.logs.push(kept);
  }

  private timedOut(): EngineOutcome {
    if (this.overgrown) return { ok: false, name: "InternalError", message: "out of memory: the run used more than its memory limit", line: undefined };
    return { ok: false, name: "TimeoutError", message: `the run took longer than ${this.limits.timeoutMs} ms and was stopped`, line: undefined };
  }

  private failure(error: unknown): EngineOutcome {
    const fields = (typeof error === "object" && error !== null ? error : {}) as { name?: unknown; message?: unknown; stack?: unknown; lineNumber?: unknown };
    const name = typeof fields.name === "string" ? fields.name : "Error";
    const message = typeof fields.message === "string" ? fields.message : String(error);
    if (/interrupted/i.test(message) && this.halted) return { ok: false, name: "AbortError", message: "the run was aborted", line: undefined };
    if (/interrupted/i.test(message) && (this.overgrown || performance.now() > this.deadline)) return this.timedOut();
    const line =
      typeof fields.stack === "string" ? lineOf(fields.stack) : typeof fields.lineNumber === "number" ? fields.lineNumber - FIRST_LINE + 1 : undefined;
    return { ok: false, name, message, line };
  }

  private hostFailure(error: unknown): EngineOutcome {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof RangeError && /call stack/i.test(message))
      return { ok: false, name: "RangeError", message: "stack overflow: the code recursed too deep", line: undefined };
    if (/out of memory/i.test(message))
      return { ok: false, name: "RangeError", message: "out of memory: the run used more than its memory limit", line: undefined };
    return this.failure(error);
  }

  private end(outcome: EngineOutcome): void {
    if (this.outcome !== undefined) return;
    this.outcome = outcome;
    clearTimeout(this.timer);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.signal.removeEventListener("abort", this.onAbort);
    if (this.droppedChars > 0) this.logs.push(`[${this.droppedChars} more characters of logs left out]`);
    const broken = this.tainted || (!outcome.ok && /out of memory/i.test(outcome.message));
    this.resolve({ outcome, logs: this.logs, ...(broken ? { broken } : {}) });
    if (!this.busy) this.dispose();
  }

  /** Frees the runtime; handles first, or QuickJS would find objects still referenced. */
  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    // After running out of memory QuickJS may hold objects it can no longer free, and freeing the
    // runtime would then abort the whole module; such a runtime is dropped with its module instead.
    if (!this.tainted && !(this.outcome?.ok === false && /out of memory/i.test(this.outcome.message))) {
      try {
        for (const deferred of this.pending) deferred.dispose();
        this.main?.dispose();
        this.context.dispose();
        this.runtime.dispose();
        return;
      } catch {
        // Fall through: the module aborted and is unusable.
      }
    }
    this.pending.clear();
    if (module !== undefined) void module.then((current) => current === this.qjs && (module = undefined));
  }
}

/** The model's line from a QuickJS stack: the first frame in the code, shifted past the wrapper's line. */
function lineOf(stack: string | undefined): number | undefined {
  const match = stack === undefined ? null : /code\.js:(\d+)/.exec(stack);
  if (match === null) return undefined;
  const line = Number(match[1]) - FIRST_LINE + 1;
  return line >= 1 ? line : undefined;
}
