/**
 * The pending requests of one connection: settles each exactly once, with its response, a timeout, a
 * cancellation or the connection's death.
 *
 * Deadlines use one timer per table, armed for the earliest deadline and re-armed when it fires, instead
 * of one setTimeout per request: with most requests answered long before their deadline, the timer fires
 * rarely, and settling a request costs no timer work unless the table empties (then the timer is
 * cleared, so an idle connection holds none).
 */
import { ProtocolError, RequestCancelledError, RequestTimeoutError, type McpError } from "../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcResponse } from "../jsonrpc/messages.js";
import type { ProgressInfo, RequestOptions } from "./request-options.js";
import { MAX_TIMER_MS } from "../util/timers.js";

export interface PendingRequest {
  readonly id: JsonRpcId;
  readonly method: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  /** When the response is due (performance.now() ms). */
  deadline: number;
  readonly timeoutMs: number;
  /** The hard limit from maxTotalTimeoutMs, or Infinity. */
  readonly totalDeadline: number;
  readonly maxTotalTimeoutMs: number | undefined;
  readonly onProgress: ((progress: ProgressInfo) => void) | undefined;
  readonly resetOnProgress: boolean;
  readonly signal: AbortSignal | undefined;
  /** Set where cancelling means aborting the exchange (2026-era HTTP) rather than notifying. */
  exchange: AbortController | undefined;
}

export interface RequestTableHooks {
  /** The request timed out or was aborted by its caller after it was sent: tell the server. */
  cancelled(entry: PendingRequest, reason: string): void;
}

export class RequestTable {
  private readonly pending = new Map<JsonRpcId, PendingRequest>();
  /**
   * One abort listener per distinct signal, not per request: callers often share one signal across
   * many requests, and EventTarget removal is linear in its listener count (10,000 requests on one
   * signal took 1.3 s with a listener each).
   */
  private readonly signalGroups = new Map<AbortSignal, SignalGroup>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  constructor(private readonly hooks: RequestTableHooks) {}

  get size(): number {
    return this.pending.size;
  }

  /** True while a deadline timer is armed (only while requests are pending). */
  get timerArmed(): boolean {
    return this.timer !== undefined;
  }

  has(id: JsonRpcId): boolean {
    return this.pending.has(id);
  }

  /**
   * Registers a request about to be sent. The returned promise settles exactly once. A signal that is
   * already aborted rejects at once and registers nothing.
   */
  add(
    id: JsonRpcId,
    method: string,
    options: RequestOptions | undefined,
    defaultTimeoutMs: number,
    exchange?: AbortController,
  ): Promise<Record<string, unknown>> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(cancelledError(method, signal.reason));
    const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
    const now = performance.now();
    const totalDeadline = options?.maxTotalTimeoutMs !== undefined ? now + options.maxTotalTimeoutMs : Infinity;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const entry: PendingRequest = {
        id,
        method,
        resolve,
        reject,
        deadline: Math.min(now + timeoutMs, totalDeadline),
        timeoutMs,
        totalDeadline,
        maxTotalTimeoutMs: options?.maxTotalTimeoutMs,
        onProgress: options?.onProgress,
        resetOnProgress: options?.resetTimeoutOnProgress === true,
        signal,
        exchange,
      };
      if (signal) this.watch(signal, entry);
      this.pending.set(id, entry);
      if (entry.deadline < this.timerAt) this.arm(entry.deadline, now);
    });
  }

  /** Settles the request a response answers. False when no request has that id. */
  settle(response: JsonRpcResponse): boolean {
    const id = response.id;
    if (id === null) return false;
    const entry = this.pending.get(id);
    if (entry === undefined) return false;
    this.remove(entry);
    if ("result" in response) entry.resolve(response.result);
    else entry.reject(ProtocolError.fromWire(response.error, entry.method));
    return true;
  }

  /** Routes a progress notification by its token (the request id). False for unknown tokens. */
  progress(token: unknown, info: ProgressInfo): boolean {
    const entry = this.pending.get(token as JsonRpcId);
    if (entry === undefined) return false;
    if (entry.resetOnProgress) {
      // Later deadlines never need a re-arm: the timer fires early, finds nothing due, re-arms.
      entry.deadline = Math.min(performance.now() + entry.timeoutMs, entry.totalDeadline);
    }
    if (entry.onProgress) {
      try {
        entry.onProgress(info);
      } catch {
        // A throwing progress callback is the caller's bug; it must not break the response stream.
      }
    }
    return true;
  }

  /** Rejects one request (e.g. its send failed). False when it already settled. */
  reject(id: JsonRpcId, error: Error): boolean {
    const entry = this.pending.get(id);
    if (entry === undefined) return false;
    this.remove(entry);
    entry.reject(error);
    return true;
  }

  /** Rejects every pending request `keep` does not claim. */
  rejectAllExcept(keep: (entry: PendingRequest) => boolean, error: (entry: PendingRequest) => Error): void {
    for (const entry of [...this.pending.values()]) {
      if (keep(entry)) continue;
      this.remove(entry);
      entry.reject(error(entry));
    }
  }

  /** Rejects every pending request, e.g. when the transport died. */
  rejectAll(error: McpError | ((entry: PendingRequest) => Error)): void {
    if (this.pending.size === 0) return;
    const entries = [...this.pending.values()];
    this.pending.clear();
    this.disarm();
    for (const entry of entries) {
      this.detach(entry);
      entry.reject(typeof error === "function" ? error(entry) : error);
    }
  }

  private abort(entry: PendingRequest): void {
    if (this.pending.get(entry.id) !== entry) return;
    this.remove(entry);
    const reason = reasonText(entry.signal?.reason);
    entry.reject(cancelledError(entry.method, entry.signal?.reason));
    this.hooks.cancelled(entry, reason ?? "Cancelled by the client");
  }

  private remove(entry: PendingRequest): void {
    this.pending.delete(entry.id);
    this.detach(entry);
    if (this.pending.size === 0) this.disarm();
  }

  private watch(signal: AbortSignal, entry: PendingRequest): void {
    let group = this.signalGroups.get(signal);
    if (group === undefined) {
      const members = new Set<PendingRequest>();
      const listener = () => {
        this.signalGroups.delete(signal);
        for (const member of members) this.abort(member);
      };
      group = { members, listener };
      this.signalGroups.set(signal, group);
      signal.addEventListener("abort", listener, { once: true });
    }
    group.members.add(entry);
  }

  private detach(entry: PendingRequest): void {
    const signal = entry.signal;
    if (signal === undefined) return;
    const group = this.signalGroups.get(signal);
    if (group === undefined) return;
    group.members.delete(entry);
    if (group.members.size === 0) {
      this.signalGroups.delete(signal);
      signal.removeEventListener("abort", group.listener);
    }
  }

  private arm(at: number, now: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerAt = at;
    // Capped: setTimeout fires after 1 ms above 2^31-1 ms, which made a hot loop of re-arms for huge
    // (finite) timeouts. Firing early is harmless: expire finds nothing due and re-arms.
    this.timer = setTimeout(this.expire, Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(at - now))));
  }

  private disarm(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.timerAt = Infinity;
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    this.timerAt = Infinity;
    // setTimeout may fire up to a millisecond early relative to performance.now().
    const now = performance.now() + 1;
    let next = Infinity;
    const due: PendingRequest[] = [];
    for (const entry of this.pending.values()) {
      if (entry.deadline <= now) due.push(entry);
      else if (entry.deadline < next) next = entry.deadline;
    }
    for (const entry of due) {
      this.pending.delete(entry.id);
      this.detach(entry);
      const total = entry.deadline >= entry.totalDeadline;
      const limit = total ? "maxTotalTimeoutMs" : "timeoutMs";
      const ms = total ? entry.maxTotalTimeoutMs! : entry.timeoutMs;
      entry.reject(
        new RequestTimeoutError(
          `Request ${entry.method} (id ${String(entry.id)}) got no response within ${ms} ms (${limit}); the request was cancelled`,
          ms,
        ),
      );
      this.hooks.cancelled(entry, `Request timed out (${limit})`);
    }
    if (this.pending.size > 0 && next !== Infinity) this.arm(next, now - 1);
  };
}

interface SignalGroup {
  members: Set<PendingRequest>;
  listener: () => void;
}

function reasonText(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  if (reason instanceof Error) return reason.message;
  return String(reason);
}

function cancelledError(method: string, reason: unknown): RequestCancelledError {
  const text = reasonText(reason);
  return new RequestCancelledError(`Request ${method} was cancelled${text ? `: ${text}` : ""}`, {
    cause: reason instanceof Error ? reason : undefined,
  });
}
