/**
 * Where a connection's pending requests live, compactly. A pending request is held for as long as the
 * server takes, 100,000 of them at once is a load people run, and an object per request plus a Map
 * entry for it were a third of a pending request's heap.
 *
 * Request ids are numbers handed out in order (jsonrpc/ids.ts), so the requests in flight form a
 * window of ids: request `id` has four consecutive slots of one array at `(id - base) * 4` (its
 * resolve function, method, deadline in whole ms, signal), and the window slides as the oldest settle.
 * A request that stays pending while many newer ones come and go would stretch it; once the window is
 * mostly holes, its live requests move to a Map (`overflow`), as do ids that do not fit the window (not
 * numbers, or older than it). Rare per-request settings (progress callbacks, a total deadline, an
 * exchange to abort) are kept in a Map of their own, so a plain request pays nothing for them.
 */
import type { JsonRpcId } from "../jsonrpc/messages.js";
import type { ProgressInfo } from "./request-options.js";

export type Resolve = (value: Record<string, unknown> | PromiseLike<Record<string, unknown>>) => void;

/** What few requests carry. */
export interface PendingExtras {
  timeoutMs: number;
  /** The hard limit from maxTotalTimeoutMs (whole performance.now() ms), or Infinity. */
  totalDeadline: number;
  maxTotalTimeoutMs: number | undefined;
  onProgress: ((progress: ProgressInfo) => void) | undefined;
  resetOnProgress: boolean;
  /** Set where cancelling means aborting the exchange (2026-era HTTP) rather than notifying. */
  exchange: AbortController | undefined;
  /** The caller's handlers for what the request causes (RequestOptions.origin). */
  origin: object | undefined;
}

interface OverflowEntry {
  resolve: Resolve;
  method: string;
  deadline: number;
  signal: AbortSignal | undefined;
}

const STRIDE = 4;
const RESOLVE = 0;
const METHOD = 1;
const DEADLINE = 2;
const SIGNAL = 3;
/** Holes past this many at the window's end go to the overflow instead of padding the window. */
const MAX_GAP = 1024;
/** Empty slots the window tolerates before it compacts (at its head) or spills (when mostly holes). */
const SLACK = 1024;

/** Where a pending request is: a window index (>= 0), the overflow, or nowhere. */
export const IN_OVERFLOW = -1;
export const ABSENT = -2;

export class PendingStore {
  /** The id of window index 0. */
  private base = 0;
  /** Window indexes before `head` are empty; `end` is one past the last used. */
  private head = 0;
  private end = 0;
  private slots: unknown[] = [];
  private live = 0;
  private overflow: Map<JsonRpcId, OverflowEntry> | undefined;
  private extras: Map<JsonRpcId, PendingExtras> | undefined;

  get size(): number {
    return this.live + (this.overflow?.size ?? 0);
  }

  add(id: JsonRpcId, resolve: Resolve, method: string, deadline: number, signal: AbortSignal | undefined, extras: PendingExtras | undefined): void {
    if (extras !== undefined) (this.extras ??= new Map()).set(id, extras);
    if (typeof id === "number") {
      if (this.live === 0) {
        this.base = id;
        this.head = this.end = 0;
      }
      const index = id - this.base;
      if (index >= this.end && index - this.end <= MAX_GAP) {
        while (this.end < index) this.write(this.end++, undefined, "", 0, undefined);
        this.write(this.end++, resolve, method, deadline, signal);
        this.live++;
        return;
      }
    }
    (this.overflow ??= new Map()).set(id, { resolve, method, deadline, signal });
  }

  /** The window index of `id`, IN_OVERFLOW, or ABSENT when it is not pending. */
  locate(id: JsonRpcId): number {
    if (typeof id === "number") {
      const index = id - this.base;
      if (index >= this.head && index < this.end && this.slots[index * STRIDE + RESOLVE] !== undefined) return index;
    }
    return this.overflow?.has(id) ? IN_OVERFLOW : ABSENT;
  }

  has(id: JsonRpcId): boolean {
    return this.locate(id) !== ABSENT;
  }

  resolverAt(id: JsonRpcId, at: number): Resolve {
    return at >= 0 ? (this.slots[at * STRIDE + RESOLVE] as Resolve) : this.overflow!.get(id)!.resolve;
  }

  methodAt(id: JsonRpcId, at: number): string {
    return at >= 0 ? (this.slots[at * STRIDE + METHOD] as string) : this.overflow!.get(id)!.method;
  }

  signalAt(id: JsonRpcId, at: number): AbortSignal | undefined {
    return at >= 0 ? (this.slots[at * STRIDE + SIGNAL] as AbortSignal | undefined) : this.overflow!.get(id)!.signal;
  }

  setDeadline(id: JsonRpcId, at: number, deadline: number): void {
    if (at >= 0) this.slots[at * STRIDE + DEADLINE] = deadline;
    else this.overflow!.get(id)!.deadline = deadline;
  }

  extrasOf(id: JsonRpcId): PendingExtras | undefined {
    return this.extras?.get(id);
  }

  /**
   * The extras of the one request pending other than those of method `besides`, when there is exactly
   * one. Scans only until a second turns up, and runs only for a message no stream relates to a request.
   */
  soleExtras(besides: string): PendingExtras | undefined {
    if (this.extras === undefined) return undefined;
    let sole: JsonRpcId | undefined;
    for (const [id, entry] of this.overflow ?? []) {
      if (entry.method === besides) continue;
      if (sole !== undefined) return undefined;
      sole = id;
    }
    for (let index = this.head; index < this.end; index++) {
      const at = index * STRIDE;
      if (this.slots[at + RESOLVE] === undefined || this.slots[at + METHOD] === besides) continue;
      if (sole !== undefined) return undefined;
      sole = this.base + index;
    }
    return sole === undefined ? undefined : this.extras.get(sole);
  }

  /** Forgets a pending request found by `locate`. */
  delete(id: JsonRpcId, at: number): void {
    if (this.extras !== undefined && this.extras.delete(id) && this.extras.size === 0) this.extras = undefined;
    if (at < 0) {
      this.overflow!.delete(id);
      if (this.overflow!.size === 0) this.overflow = undefined;
      return;
    }
    this.write(at, undefined, "", 0, undefined);
    this.live--;
    if (this.live === 0) {
      // An idle connection keeps no slots (its array's store is released; the next request makes one).
      this.head = this.end = 0;
      this.slots.length = 0;
      return;
    }
    if (at === this.head) {
      while (this.slots[this.head * STRIDE + RESOLVE] === undefined) this.head++;
      if (this.head > SLACK && this.head * 2 > this.end) this.dropHead();
    }
    if (this.end - this.head > 4 * this.live + SLACK) this.spill();
  }

  /** The pending ids, oldest first. */
  ids(): JsonRpcId[] {
    const ids: JsonRpcId[] = this.overflow ? [...this.overflow.keys()] : [];
    for (let index = this.head; index < this.end; index++) if (this.slots[index * STRIDE + RESOLVE] !== undefined) ids.push(this.base + index);
    return ids;
  }

  /** Each pending id with its deadline, oldest first (`visit` must not change the store). */
  forEachDeadline(visit: (id: JsonRpcId, deadline: number) => void): void {
    if (this.overflow) for (const [id, entry] of this.overflow) visit(id, entry.deadline);
    for (let index = this.head; index < this.end; index++) {
      if (this.slots[index * STRIDE + RESOLVE] !== undefined) visit(this.base + index, this.slots[index * STRIDE + DEADLINE] as number);
    }
  }

  private write(index: number, resolve: Resolve | undefined, method: string, deadline: number, signal: AbortSignal | undefined): void {
    const at = index * STRIDE;
    const slots = this.slots;
    if (at < slots.length) {
      slots[at + RESOLVE] = resolve;
      slots[at + METHOD] = method;
      slots[at + DEADLINE] = deadline;
      slots[at + SIGNAL] = signal;
    } else {
      slots.push(resolve, method, deadline, signal);
    }
  }

  /** Moves the window's live part to the front of the array (amortised: only once the head is half of it). */
  private dropHead(): void {
    const from = this.head * STRIDE;
    const to = this.end * STRIDE;
    this.slots.copyWithin(0, from, to);
    this.slots.fill(undefined, to - from, to);
    this.base += this.head;
    this.end -= this.head;
    this.head = 0;
  }

  /** The window is mostly holes behind a few stragglers: they move to the overflow and the window starts afresh. */
  private spill(): void {
    const overflow = (this.overflow ??= new Map());
    for (let index = this.head; index < this.end; index++) {
      const at = index * STRIDE;
      const resolve = this.slots[at + RESOLVE] as Resolve | undefined;
      if (resolve === undefined) continue;
      overflow.set(this.base + index, {
        resolve,
        method: this.slots[at + METHOD] as string,
        deadline: this.slots[at + DEADLINE] as number,
        signal: this.slots[at + SIGNAL] as AbortSignal | undefined,
      });
    }
    this.live = 0;
    this.head = this.end = 0;
    this.slots = [];
  }
}
