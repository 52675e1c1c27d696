/**
 * The messages between the pool (main thread, pool.ts) and a code-mode worker (worker.ts). Only
 * strings and plain data cross: the code, the catalog and each call's arguments and answer as JSON text.
 */
import type { EngineLimits, EngineOutcome } from "./engine.js";

export type ToWorker =
  | { type: "run"; id: number; code: string; catalog: string; limits: EngineLimits }
  /** The answer of call `callId`, as JSON text (bridge.ts). */
  | { type: "reply"; callId: number; text: string }
  | { type: "abort"; id: number };

export type FromWorker =
  /** The engine starts now: the run's deadline counts from here, not from the worker's start-up. */
  | { type: "started"; id: number }
  | { type: "call"; id: number; callId: number; server: string; tool: string; args: string }
  /** `recycle`: the worker's memory is spent or untrusted; stop it and start another. */
  | { type: "done"; id: number; outcome: EngineOutcome; logs: string[]; recycle: boolean };
