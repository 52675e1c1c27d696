/**
 * The worker thread a code run executes in (pool.ts starts it): one run at a time, in a QuickJS module
 * of its own whose memory is capped (engine.ts `boundedModule`), so a busy loop or a memory bomb stalls
 * this thread, never the host's event loop. A tool call leaves as a message and its answer comes back as
 * one; the board, with its hooks, approval, limits and telemetry, stays on the main thread. The pool
 * aborts a run by setting the shared flag, which the engine's interrupt handler reads even inside a
 * busy loop. After a run that broke its module or grew its memory, the worker asks to be replaced,
 * so the memory goes back to the operating system with the thread.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { QuickJSWASMModule } from "quickjs-emscripten";
import { BASE_MEMORY_BYTES, boundedModule, runInEngine } from "./engine.js";
import type { FromWorker, ToWorker } from "./worker-protocol.js";

/** Grown past this over its start, a module's memory is worth handing back to the OS. */
const KEEP_GROWN_BYTES = 32 * 1024 * 1024;

const port = parentPort!;
const flag = new Int32Array((workerData as { flag: SharedArrayBuffer }).flag);
/** Modules by their memory cap: a board uses one limit, so this holds one module. */
const modules = new Map<number, Promise<QuickJSWASMModule>>();
const replies = new Map<number, (text: string) => void>();
let current: { id: number; controller: AbortController } | undefined;
let nextCall = 1;

const send = (message: FromWorker) => port.postMessage(message);

port.on("message", (message: ToWorker) => {
  if (message.type === "reply") {
    replies.get(message.callId)?.(message.text);
    replies.delete(message.callId);
  } else if (message.type === "abort") {
    if (current?.id === message.id) current.controller.abort();
  } else void run(message);
});

async function run(message: Extract<ToWorker, { type: "run" }>): Promise<void> {
  const { id, code, catalog, limits } = message;
  const controller = new AbortController();
  current = { id, controller };
  let module = modules.get(limits.memoryLimitBytes);
  if (module === undefined) modules.set(limits.memoryLimitBytes, (module = boundedModule(limits.memoryLimitBytes)));
  const qjs = await module;
  send({ type: "started", id });
  const hostCall = (server: string, tool: string, args: string) =>
    new Promise<string>((resolve) => {
      const callId = nextCall++;
      replies.set(callId, resolve);
      send({ type: "call", id, callId, server, tool, args });
    });
  const out = await runInEngine(code, catalog, hostCall, limits, controller.signal, { module: qjs, stopped: () => Atomics.load(flag, 0) === id });
  current = undefined;
  // Calls the code never awaited: their answers, when they come, find nobody waiting.
  replies.clear();
  const memory = (qjs.getWasmMemory() as unknown as { buffer: ArrayBuffer }).buffer.byteLength;
  const recycle = out.broken === true || memory > BASE_MEMORY_BYTES + KEEP_GROWN_BYTES;
  send({ type: "done", id, outcome: out.outcome, logs: out.logs, recycle });
}
