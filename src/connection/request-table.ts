/**
 * The pending requests of one connection: settles each exactly once, with its response, a timeout, a
 * cancellation or the connection's death.
 *
 * Deadlines use one timer per table, armed for the earliest deadline and re-armed when it fires, instead
 * of one setTimeout per request: with most requests answered long before their deadline, the timer fires
 * rarely, and settling a request costs no timer work unless the table empties (then the timer is
 * cleared, so an idle connection holds none).
 *
 * Memory per pending request is kept small (pending-store.ts keeps the fields in slots of one array):
 * its promise and resolve function are all it holds beyond that. A failure settles the promise by
 * resolving it with a rejected one, so the request keeps no `reject` function alive while it waits.
 */
import { display } from "../util/guards.js";
import { ProtocolError, RequestCancelledError, RequestTimeoutError, type McpError } from "../jsonrpc/errors.js";
import type { JsonRpcId, JsonRpcResponse } from "../jsonrpc/messages.js";
import type { ProgressInfo, RequestOptions } from "./request-options.js";
import { MAX_TIMER_MS } from "../util/timers.js";
import { ABSENT, PendingStore, type PendingExtras, type Resolve } from "./pending-store.js";

/** A pending request as the table's hooks and callers see it when it is cancelled or failed. */
export interface PendingRequest {
  readonly id: JsonRpcId;
  readonly method: string;
  /** Set where cancelling means aborting the exchange (2026-era HTTP) rather than notifying. */
  readonly exchange: AbortController | undefined;
}

export interface RequestTableHooks {
  /** The request timed out or was aborted by its caller after it was sent: tell the server. */
  cancelled(entry: PendingRequest, reason: string): void;
}

type Result = Record<string, unknown>;

/** `new Promise(capture)` leaves its resolve function here: no closure per request. */
let captured: Resolve | undefined;
function capture(resolve: Resolve): void {
  captured = resolve;
}

export class RequestTable {
  private readonly store = new PendingStore();
  /**
   * One abort listener per distinct signal, not per request: callers often share one signal across
   * many requests, and EventTarget removal is linear in its listener count (10,000 requests on one
   * signal took 1.3 s with a listener each). Made for the first signal.
   */
  private signalGroups: Map<AbortSignal, SignalGroup> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  /** The timeout most requests have (the connection's); a request with another keeps its own in its extras. */
  private defaultTimeoutMs: number | undefined;

  constructor(private readonly hooks: RequestTableHooks) {}

  get size(): number {
    return this.store.size;
  }

  /** True while a deadline timer is armed (only while requests are pending). */
  get timerArmed(): boolean {
    return this.timer !== undefined;
  }

  has(id: JsonRpcId): boolean {
    return this.store.has(id);
  }

  /**
   * Registers a request about to be sent. The returned promise settles exactly once. A signal that is
   * already aborted rejects at once and registers nothing.
   */
  add(id: JsonRpcId, method: string, options: RequestOptions | undefined, defaultTimeoutMs: number, exchange?: AbortController): Promise<Result> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(cancelledError(method, signal.reason));
    this.defaultTimeoutMs ??= defaultTimeoutMs;
    const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
    const now = performance.now();
    // Whole ms (small integers are stored unboxed); at most 1 ms late, and the timer may fire 1 ms early anyway.
    let deadline = Math.ceil(now + timeoutMs);
    let extras: PendingExtras | undefined;
    if (
      options !== undefined &&
      (options.maxTotalTimeoutMs !== undefined || options.onProgress !== undefined || options.resetTimeoutOnProgress === true || options.origin !== undefined)
    ) {
      extras = extrasFor(options, timeoutMs, now, exchange);
    } else if (exchange !== undefined || timeoutMs !== this.defaultTimeoutMs) {
      extras = extrasFor(options, timeoutMs, now, exchange);
    }
    if (extras !== undefined && extras.totalDeadline < deadline) deadline = extras.totalDeadline;
    const promise = new Promise<Result>(capture);
    this.store.add(id, captured!, method, deadline, signal, extras);
    captured = undefined;
    if (signal) this.watch(signal, id);
    if (deadline < this.timerAt) this.arm(deadline, now);
    return promise;
  }

  /** Settles the request a response answers. False when no request has that id. */
  settle(response: JsonRpcResponse): boolean {
    const id = response.id;
    if (id === null) return false;
    const at = this.store.locate(id);
    if (at === ABSENT) return false;
    const resolve = this.store.resolverAt(id, at);
    if ("result" in response) {
      this.remove(id, at);
      resolve(response.result);
    } else {
      const method = this.store.methodAt(id, at);
      this.remove(id, at);
      resolve(Promise.reject(ProtocolError.fromWire(response.error, method)));
    }
    return true;
  }

  /**
   * The handlers a server request or log should reach (RequestOptions.origin): those of the request on
   * whose stream it came (`id`); with none, those of the connection's one pending request when it is
   * the only one, the only case where the request that caused it is certain (stdio, a GET stream). An
   * open `subscriptions/listen` does not count: nothing but list changes and updates comes of it.
   */
  originFor(id: JsonRpcId | undefined): object | undefined {
    if (id !== undefined) return this.store.extrasOf(id)?.origin;
    return this.store.soleExtras("subscriptions/listen")?.origin;
  }

  /** Routes a progress notification by its token (the request id). False for unknown tokens. */
  progress(token: unknown, info: ProgressInfo): boolean {
    const id = token as JsonRpcId;
    const at = this.store.locate(id);
    if (at === ABSENT) return false;
    const extras = this.store.extrasOf(id);
    if (extras === undefined) return true;
    if (extras.resetOnProgress) {
      // Later deadlines never need a re-arm: the timer fires early, finds nothing due, re-arms.
      this.store.setDeadline(id, at, Math.min(Math.ceil(performance.now() + extras.timeoutMs), extras.totalDeadline));
    }
    if (extras.onProgress) {
      try {
        extras.onProgress(info);
      } catch {
        // A throwing progress callback is the caller's bug; it must not break the response stream.
      }
    }
    return true;
  }

  /** Rejects one request (e.g. its send failed). False when it already settled. */
  reject(id: JsonRpcId, error: Error): boolean {
    const at = this.store.locate(id);
    if (at === ABSENT) return false;
    const resolve = this.store.resolverAt(id, at);
    this.remove(id, at);
    resolve(Promise.reject(error));
    return true;
  }

  /** Rejects every pending request `keep` does not claim. */
  rejectAllExcept(keep: (entry: PendingRequest) => boolean, error: (entry: PendingRequest) => Error): void {
    for (const id of this.store.ids()) {
      const entry = this.view(id);
      if (entry === undefined || keep(entry)) continue;
      this.reject(id, error(entry));
    }
  }

  /** Rejects every pending request, e.g. when the transport died. */
  rejectAll(error: McpError | ((entry: PendingRequest) => Error)): void {
    if (this.store.size === 0) return;
    for (const id of this.store.ids()) {
      const entry = typeof error === "function" ? this.view(id) : undefined;
      this.reject(id, entry ? (error as (entry: PendingRequest) => Error)(entry) : (error as McpError));
    }
  }

  /** The caller aborted `id` after it was sent: reject it and tell the server. */
  private abort(id: JsonRpcId, signal: AbortSignal): void {
    const at = this.store.locate(id);
    if (at === ABSENT || this.store.signalAt(id, at) !== signal) return;
    const entry = this.view(id)!;
    this.reject(id, cancelledError(entry.method, signal.reason));
    this.hooks.cancelled(entry, reasonText(signal.reason) ?? "Cancelled by the client");
  }

  private view(id: JsonRpcId): PendingRequest | undefined {
    const at = this.store.locate(id);
    if (at === ABSENT) return undefined;
    return { id, method: this.store.methodAt(id, at), exchange: this.store.extrasOf(id)?.exchange };
  }

  private remove(id: JsonRpcId, at: number): void {
    const signal = this.store.signalAt(id, at);
    this.store.delete(id, at);
    if (signal !== undefined) this.detach(signal);
    if (this.store.size === 0) this.disarm();
  }

  private watch(signal: AbortSignal, id: JsonRpcId): void {
    const groups = (this.signalGroups ??= new Map<AbortSignal, SignalGroup>());
    let group = groups.get(signal);
    if (group === undefined) {
      const members: JsonRpcId[] = [];
      const listener = () => {
        groups.delete(signal);
        for (const member of group!.members) this.abort(member, signal);
      };
      group = { members, live: 0, listener };
      groups.set(signal, group);
      signal.addEventListener("abort", listener, { once: true });
    }
    group.members.push(id);
    group.live++;
  }

  /** A request with `signal` settled. Its id stays in the group's list until the list is mostly settled ids. */
  private detach(signal: AbortSignal): void {
    const group = this.signalGroups?.get(signal);
    if (group === undefined) return;
    group.live--;
    if (group.live === 0) {
      this.signalGroups!.delete(signal);
      signal.removeEventListener("abort", group.listener);
    } else if (group.members.length > 2 * group.live + 32) {
      group.members = group.members.filter((id) => {
        const at = this.store.locate(id);
        return at !== ABSENT && this.store.signalAt(id, at) === signal;
      });
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
    const due: Array<[JsonRpcId, number]> = [];
    this.store.forEachDeadline((id, deadline) => {
      if (deadline <= now) due.push([id, deadline]);
      else if (deadline < next) next = deadline;
    });
    for (const [id, deadline] of due) {
      const entry = this.view(id);
      if (entry === undefined) continue; // settled by an earlier one's cancellation
      const extras = this.store.extrasOf(id);
      const total = extras?.maxTotalTimeoutMs !== undefined && deadline >= extras.totalDeadline;
      const limit = total ? "maxTotalTimeoutMs" : "timeoutMs";
      const ms = total ? extras.maxTotalTimeoutMs! : (extras?.timeoutMs ?? this.defaultTimeoutMs!);
      this.reject(
        id,
        new RequestTimeoutError(`Request ${entry.method} (id ${String(id)}) got no response within ${ms} ms (${limit}); the request was cancelled`, ms),
      );
      this.hooks.cancelled(entry, `Request timed out (${limit})`);
    }
    if (this.store.size > 0 && next !== Infinity) this.arm(next, now - 1);
  };
}

interface SignalGroup {
  /** Ids of requests made with the signal; settled ones are dropped lazily. */
  members: JsonRpcId[];
  /** How many of them are pending. */
  live: number;
  listener: () => void;
}

function extrasFor(options: RequestOptions | undefined, timeoutMs: number, now: number, exchange: AbortController | undefined): PendingExtras {
  const maxTotalTimeoutMs = options?.maxTotalTimeoutMs;
  return {
    timeoutMs,
    totalDeadline: maxTotalTimeoutMs !== undefined ? Math.ceil(now + maxTotalTimeoutMs) : Infinity,
    maxTotalTimeoutMs,
    onProgress: options?.onProgress,
    resetOnProgress: options?.resetTimeoutOnProgress === true,
    exchange,
    origin: options?.origin,
  };
}

function reasonText(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  return display(reason);
}

function cancelledError(method: string, reason: unknown): RequestCancelledError {
  const text = reasonText(reason);
  return new RequestCancelledError(`Request ${method} was cancelled${text ? `: ${text}` : ""}`, {
    cause: reason instanceof Error ? reason : undefined,
  });
}
