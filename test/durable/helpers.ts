/**
 * What the durable-run process tests share: worker processes (test/fixtures/durable/worker.ts) that
 * can be killed with SIGKILL, and the scripted model's plan for a run: a transfer and a balance read,
 * then another transfer, then an answer. The plan reads the run id from the user message, so one model
 * server serves many runs at once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ScriptedTurn, RecordedRequest } from "../fixtures/model-server.js";
import type { WorkerConfig, WorkerOrder } from "../fixtures/durable/worker.js";
import type { PendingApproval, TraceMessage } from "../../src/index.js";

const WORKER = fileURLToPath(new URL("../fixtures/durable/worker.ts", import.meta.url));

export interface WorkerLine {
  runId: string;
  stopReason?: string;
  text?: string;
  messages?: TraceMessage[];
  pendingApprovals?: PendingApproval[];
  error?: string;
  reason?: string;
}

export interface Worker {
  child: ChildProcess;
  ready: Promise<void>;
  /** Sends the runs to drive. */
  go(order: WorkerOrder): void;
  /** Resolves when the process has exited, with what it printed. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: WorkerLine[]; stderr: string }>;
  kill(): Promise<void>;
}

export function startWorker(config: WorkerConfig): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, JSON.stringify(config)], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    if (stdout.startsWith("ready\n")) onReady();
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  child.stdin.on("error", () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; lines: WorkerLine[]; stderr: string }>((resolve) => {
    child.on("exit", (code, signal) => {
      onReady();
      const lines = stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as WorkerLine);
      resolve({ code, signal, lines, stderr });
    });
  });
  return {
    child,
    ready,
    go: (order) => child.stdin.write(`${JSON.stringify(order)}\n`),
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** The user message's run id: the worker asks "pay for <runId>". */
export function runIdOf(request: RecordedRequest): string {
  const user = (request.body.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === "user");
  const text = typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
  return /pay for ([A-Za-z0-9_:.-]+)/.exec(text)?.[1] ?? "unknown";
}

/** Turn by turn: a transfer and a balance read, another transfer, then the answer. */
export function payPlan(request: RecordedRequest): ScriptedTurn {
  const runId = runIdOf(request);
  const turn = (request.body.messages as Array<{ role: string }>).filter((m) => m.role === "assistant").length;
  if (turn === 0)
    return {
      toolCalls: [
        { name: "bank__transfer", arguments: { to: `${runId}-a`, amount: 1 } },
        { name: "bank__balance", arguments: { account: runId } },
      ],
    };
  if (turn === 1) return { toolCalls: [{ name: "bank__transfer", arguments: { to: `${runId}-b`, amount: 2 } }] };
  return { text: `done ${runId}` };
}

/** Every tool_use has exactly one tool_result, in the tool message right after it, and nothing else. */
export function wellFormed(messages: readonly TraceMessage[]): boolean {
  for (let i = 0; i < messages.length; i++) {
    const uses = messages[i].content.filter((b) => b.type === "tool_use").map((b) => (b.type === "tool_use" ? b.id : ""));
    if (uses.length === 0) continue;
    const next = messages[i + 1];
    if (next?.role !== "tool") return false;
    const results = next.content.map((b) => (b.type === "tool_result" ? b.toolUseId : "?"));
    if (results.length !== uses.length || new Set(results).size !== results.length || !uses.every((id) => results.includes(id))) return false;
  }
  return true;
}

/** The text of the tool result for `toolUseId` in a trace. */
export function resultText(messages: readonly TraceMessage[], toolUseId: string): string | undefined {
  for (const message of messages)
    for (const block of message.content)
      if (block.type === "tool_result" && block.toolUseId === toolUseId) return block.content.map((c) => (c.type === "text" ? c.text : "")).join("");
  return undefined;
}
