/**
 * The worker threads code runs execute in, so the model's code never runs on the host's event loop:
 * one run per worker at a time, workers started when runs need them (up to the pool's size) and
 * stopped after a while idle. A run's tool calls come back here as messages and go through its
 * `hostCall` (bridge.ts: the board, its hooks, approval, limits and telemetry), on this thread.
 *
 * Three things end a run from here, each with one timer per run (runs are not the per-message path):
 * the run's deadline plus a grace (a worker that does not stop by itself is terminated), an abort (the
 * shared flag stops even a busy loop; a worker that does not answer soon after is terminated), and a
 * worker that dies (its run fails with a `WorkerError`). Runs wait in order for a free worker, so the
 * pool cannot deadlock: every run ends, and every end frees or replaces its worker.
 */
import { AsyncResource } from "node:async_hooks";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";
import type { EngineLimits, EngineOutcome, EngineRun, HostCall } from "./engine.js";
import type { FromWorker, ToWorker } from "./worker-protocol.js";

export interface PoolJob {
  code: string;
  catalog: string;
  limits: EngineLimits;
  hostCall: HostCall;
  signal: AbortSignal;
}

interface Waiting {
  job: PoolJob;
  resolve: (run: EngineRun) => void;
  onAbort: () => void;
}

interface Active extends Waiting {
  id: number;
  timer: ReturnType<typeof setTimeout>;
}

interface Slot {
  worker: Worker;
  flag: Int32Array;
  active: Active | undefined;
  idle: ReturnType<typeof setTimeout> | undefined;
}

/** A worker that does not stop this long after its run's deadline is terminated. */
const DEADLINE_GRACE_MS = 1_000;
/** A worker that has not started its run this long after it was handed over is replaced. */
const BOOT_MS = 60_000;
/** A worker that does not stop this long after its run was aborted is terminated. */
const ABORT_GRACE_MS = 250;
/** An idle worker is stopped after this long, handing its memory back. */
const IDLE_MS = 15_000;
/** The worker's own V8 heap (the engine's memory is WebAssembly, capped per run): a backstop. */
const WORKER_HEAP_MB = 256;

const aborted: EngineOutcome = { ok: false, name: "AbortError", message: "the run was aborted", line: undefined };

/** The default number of workers: one per core, at least two, so one long run does not hold up the rest. */
export function defaultWorkers(): number {
  return Math.max(2, availableParallelism());
}

export class EnginePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Waiting[] = [];
  private nextId = 1;

  constructor(readonly size: number) {}

  /** Runs the job in a worker; resolves, never rejects, also when the worker dies or is stopped. */
  run(job: PoolJob): Promise<EngineRun> {
    if (job.signal.aborted) return Promise.resolve({ outcome: aborted, logs: [] });
    // A worker's messages arrive in the async context it was started in, that of the first run it ran:
    // the run's tool calls go back to the run's own context (its span, for telemetry) explicitly.
    job = { ...job, hostCall: AsyncResource.bind(job.hostCall) };
    return new Promise((resolve) => {
      const waiting: Waiting = {
        job,
        resolve,
        onAbort: () => {
          const at = this.queue.indexOf(waiting);
          if (at >= 0) this.queue.splice(at, 1);
          resolve({ outcome: aborted, logs: [] });
        },
      };
      job.signal.addEventListener("abort", waiting.onAbort, { once: true });
      this.queue.push(waiting);
      this.pump();
    });
  }

  /** Workers running or idle (for tests and the bench). */
  get workers(): readonly Worker[] {
    return this.slots.map((slot) => slot.worker);
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((candidate) => candidate.active === undefined);
      if (slot === undefined && this.slots.length < this.size) slot = this.spawn();
      if (slot === undefined) return;
      const waiting = this.queue.shift()!;
      waiting.job.signal.removeEventListener("abort", waiting.onAbort);
      this.dispatch(slot, waiting);
    }
  }

  private dispatch(slot: Slot, waiting: Waiting): void {
    const { job } = waiting;
    const id = this.nextId++;
    if (slot.idle !== undefined) clearTimeout(slot.idle);
    slot.idle = undefined;
    slot.worker.ref();
    const active: Active = {
      ...waiting,
      id,
      // Until the engine starts (a new worker boots first), only a stuck start-up is bounded.
      timer: setTimeout(() => this.kill(slot, { ok: false, name: "WorkerError", message: "the sandbox's worker did not start", line: undefined }), BOOT_MS),
      onAbort: () => {
        Atomics.store(slot.flag, 0, id);
        this.post(slot, { type: "abort", id });
        clearTimeout(active.timer);
        active.timer = setTimeout(() => this.kill(slot, aborted), ABORT_GRACE_MS);
      },
    };
    slot.active = active;
    job.signal.addEventListener("abort", active.onAbort, { once: true });
    this.post(slot, { type: "run", id, code: job.code, catalog: job.catalog, limits: job.limits });
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    const active = slot.active;
    if (active?.id !== message.id) return;
    if (message.type === "started") {
      if (active.job.signal.aborted) return;
      const { timeoutMs } = active.job.limits;
      clearTimeout(active.timer);
      active.timer = setTimeout(
        () => this.kill(slot, { ok: false, name: "TimeoutError", message: `the run took longer than ${timeoutMs} ms and was stopped`, line: undefined }),
        timeoutMs + DEADLINE_GRACE_MS,
      );
      return;
    }
    if (message.type === "call") {
      const { callId } = message;
      active.job.hostCall(message.server, message.tool, message.args).then(
        (text) => this.post(slot, { type: "reply", callId, text }),
        (error: unknown) => this.post(slot, { type: "reply", callId, text: JSON.stringify({ ok: false, name: "Error", message: String(error) }) }),
      );
      return;
    }
    this.finish(slot, { outcome: message.outcome, logs: message.logs });
    if (message.recycle) this.retire(slot);
    else {
      slot.worker.unref();
      slot.idle = setTimeout(() => this.retire(slot), IDLE_MS);
      slot.idle.unref();
    }
    this.pump();
  }

  private finish(slot: Slot, run: EngineRun): void {
    const active = slot.active;
    if (active === undefined) return;
    slot.active = undefined;
    clearTimeout(active.timer);
    active.job.signal.removeEventListener("abort", active.onAbort);
    active.resolve(run);
  }

  /** Ends the worker's run with `outcome` and replaces the worker. */
  private kill(slot: Slot, outcome: EngineOutcome): void {
    this.finish(slot, { outcome, logs: [] });
    this.retire(slot);
    this.pump();
  }

  private retire(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    if (slot.idle !== undefined) clearTimeout(slot.idle);
    void slot.worker.terminate();
  }

  private post(slot: Slot, message: ToWorker): void {
    if (this.slots.includes(slot)) slot.worker.postMessage(message);
  }

  private spawn(): Slot {
    const flag = new SharedArrayBuffer(4);
    const worker = startWorker({ workerData: { flag }, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
    const slot: Slot = { worker, flag: new Int32Array(flag), active: undefined, idle: undefined };
    worker.on("message", (message: FromWorker) => this.onMessage(slot, message));
    const died = (why: string) => {
      if (!this.slots.includes(slot)) return;
      this.finish(slot, { outcome: { ok: false, name: "WorkerError", message: `the sandbox's worker thread stopped: ${why}`, line: undefined }, logs: [] });
      this.retire(slot);
      this.pump();
    };
    worker.on("error", (error) => died(error.message));
    worker.on("exit", (code) => died(`it exited with code ${code}`));
    this.slots.push(slot);
    return slot;
  }
}

/**
 * The worker from the built package (dist/codemode/worker.js), or, running from the TypeScript
 * sources (tests, the bench), worker.ts through tsx: a worker does not inherit the host's loader.
 */
function startWorker(options: WorkerOptions): Worker {
  const built = new URL("./worker.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return new Worker(built, options);
  const source = new URL("./worker.ts", import.meta.url).href;
  // tsx (a dev dependency) resolved from here, not from the worker's cwd; its ESM entry sits beside the
  // CommonJS one `require.resolve` finds, and only the ESM one loads inside a worker.
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve("tsx/esm/api")
      .replace(/\.cjs$/, ".mjs"),
  ).href;
  const boot = `import(${JSON.stringify(tsx)}).then((api) => api.tsImport(${JSON.stringify(source)}, ${JSON.stringify(built.href)}))`;
  return new Worker(boot, { ...options, eval: true, execArgv: [] });
}

const pools = new Map<number, EnginePool>();

/** The process's pool of `size` workers, shared by every code mode asking for that size. */
export function sharedPool(size: number): EnginePool {
  let pool = pools.get(size);
  if (pool === undefined) pools.set(size, (pool = new EnginePool(size)));
  return pool;
}
