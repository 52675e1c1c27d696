/** Worker processes for the fleet tests: a tsx script, settings in its env, its last JSON line as the outcome. */
import { spawn, type ChildProcess } from "node:child_process";

export interface Outcome {
  ok: number;
  failed: number;
  errors: string[];
  events: string[];
  fleetEvents: Array<{ type: string; at: number }> | string[];
  /** Caps workers: each call's time (the server's hold plus its wait for a permit), ms. */
  p50Ms?: number;
  p99Ms?: number;
  maxMs?: number;
  /** Storm workers: the longest wait between two successful calls, ms. */
  maxGapMs?: number;
}

export interface Worker {
  child: ChildProcess;
  /** It printed `{"ready":true}` (or exited). */
  ready: Promise<void>;
  /** Its last JSON line; undefined if it was killed first. */
  done: Promise<Outcome | undefined>;
}

export function startWorker(script: string, env: Record<string, string>): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
  let text = "";
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    text += chunk;
    if (text.includes('"ready":true')) markReady();
  });
  const done = new Promise<Outcome | undefined>((resolve) =>
    child.once("exit", () => {
      markReady();
      const last = text.trim().split("\n").at(-1);
      resolve(last && !last.includes('"ready"') ? (JSON.parse(last) as Outcome) : undefined);
    }),
  );
  return { child, ready, done };
}
