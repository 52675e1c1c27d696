/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) when the caller enables it: a
 * tools/call may come back as `resultType: "task"`. The call then polls `tasks/get` at the server's
 * `pollIntervalMs`, answers input with `tasks/update`, cancels with `tasks/cancel`, and resolves with
 * the task's final result, so `callTool` looks the same to its caller. Status changes are reported as
 * progress.
 */
import { ErrorCode } from "../../jsonrpc/codes.js";
import { McpError, ProtocolError, RequestCancelledError } from "../../jsonrpc/errors.js";
import type { RequestOptions } from "../request-options.js";
import type { CallScope } from "./call-scope.js";
import type { Params, Result, Wire } from "./dialect.js";
import { clamp, sleep } from "../../util/timers.js";
import { isObject } from "../../util/guards.js";
import { nextRoundParams } from "./mrtr.js";

export const DEFAULT_POLL_INTERVAL_MS = 1000;
/**
 * The server's pollIntervalMs is clamped: 0 would poll in a tight loop, and a delay above 2^31-1 ms
 * makes setTimeout fire after 1 ms (the same loop).
 */
export const MIN_POLL_INTERVAL_MS = 100;
export const MAX_POLL_INTERVAL_MS = 60_000;

/** Sends a request under the modern envelope (supplied by the dialect). */
export type TaskRequest = (method: string, params: Params, options?: RequestOptions) => Promise<Result>;

interface TaskState {
  taskId: string;
  status: string;
  statusMessage?: string | undefined;
  pollIntervalMs?: number | undefined;
  inputRequests?: Record<string, unknown> | undefined;
  result?: Result | undefined;
  error?: { code?: number; message?: string; data?: unknown } | undefined;
}

/** Drives the task to its end within `scope` (the call's deadline and the caller's signal). */
export async function runTask(wire: Wire, send: TaskRequest, created: Result, options: RequestOptions | undefined, scope: CallScope): Promise<Result> {
  let task = taskOf(created);
  const taskId = task.taskId;
  const signal = scope.signal;
  const answered = new Set<string>();
  let polls = 0;
  const cancel = () => {
    // tasks/cancel, never notifications/cancelled: the task outlives the request that created it.
    send("tasks/cancel", { taskId }).catch((error: Error) =>
      wire.emit("error", new McpError(`tasks/cancel for ${taskId} failed: ${error.message}`, { cause: error })),
    );
  };
  signal.addEventListener("abort", cancel, { once: true });
  try {
    for (;;) {
      if (signal.aborted) throw scope.failure();
      options?.onProgress?.({ progress: polls, message: task.statusMessage ?? task.status });
      switch (task.status) {
        case "completed":
          return task.result ?? {};
        case "failed":
          throw new ProtocolError(
            `Task ${taskId} failed: ${task.error?.message ?? "no reason given"}`,
            task.error?.code ?? ErrorCode.InternalError,
            task.error?.data,
          );
        case "cancelled":
          throw new RequestCancelledError(`Task ${taskId} was cancelled`);
        case "input_required": {
          // Keys already answered may show up again until the server has processed them.
          const fresh = Object.fromEntries(Object.entries(task.inputRequests ?? {}).filter(([key]) => !answered.has(key)));
          if (Object.keys(fresh).length > 0) {
            const next = await nextRoundParams(wire, { taskId }, { inputRequests: fresh }, signal, options?.origin);
            for (const key of Object.keys(fresh)) answered.add(key);
            await send("tasks/update", { taskId, inputResponses: next.inputResponses }, { signal, maxTotalTimeoutMs: scope.remaining() });
          }
          break;
        }
      }
      await sleep(clamp(task.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, MIN_POLL_INTERVAL_MS, MAX_POLL_INTERVAL_MS, DEFAULT_POLL_INTERVAL_MS), signal);
      if (signal.aborted) throw scope.failure();
      polls++;
      task = taskOf(await send("tasks/get", { taskId }, { signal, timeoutMs: options?.timeoutMs, maxTotalTimeoutMs: scope.remaining() }));
    }
  } finally {
    signal.removeEventListener("abort", cancel);
  }
}

function taskOf(result: Result): TaskState {
  const task = isObject(result.task) ? result.task : result;
  if (typeof task.taskId !== "string" || typeof task.status !== "string") {
    throw new ProtocolError(`The server's task result has no taskId/status: ${JSON.stringify(result).slice(0, 200)}`, ErrorCode.InternalError);
  }
  return {
    taskId: task.taskId,
    status: task.status,
    statusMessage: typeof task.statusMessage === "string" ? task.statusMessage : undefined,
    pollIntervalMs: typeof task.pollIntervalMs === "number" && task.pollIntervalMs >= 0 ? task.pollIntervalMs : undefined,
    inputRequests: (task.inputRequests ?? result.inputRequests) as Record<string, unknown> | undefined,
    result: (task.result ?? result.result) as Result | undefined,
    error: (task.error ?? result.error) as TaskState["error"],
  };
}
