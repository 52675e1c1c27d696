/**
 * The HTTP request now carrying each pending JSON-RPC request (its POST, or a GET resuming its stream),
 * so a request that timed out or was cancelled can be dropped with its socket: a server that never
 * answers must not keep the keep-alive pool busy. A Map entry per request costs far less than an
 * AbortController and its listener, which this hot path once had and lost on purpose.
 */
import { setMaxListeners } from "node:events";
import type { JsonRpcId } from "../jsonrpc/messages.js";

/** What carries a request: an undici exchange (undici-exchange.ts), ended with its socket by destroy(). */
export interface Destroyable {
  destroy(): void;
}

export class Exchanges {
  /** null until the request exists (the headers may still be in the making). */
  private readonly requests = new Map<JsonRpcId, Destroyable | null>();

  /** A request is about to be sent. */
  open(id: JsonRpcId): void {
    this.requests.set(id, null);
  }

  /** `request`, made at once, carries `id` (json-post.ts: no open() before it). */
  start(id: JsonRpcId, request: Destroyable): void {
    this.requests.set(id, request);
  }

  /** `request` now carries `id`; if `id` was abandoned meanwhile, `request` goes at once. */
  keep(id: JsonRpcId, request: Destroyable): void {
    if (this.requests.has(id)) this.requests.set(id, request);
    else request.destroy();
  }

  /** False once the request was abandoned (or finished). */
  isOpen(id: JsonRpcId): boolean {
    return this.requests.has(id);
  }

  /** The exchange ended by itself. */
  finish(id: JsonRpcId): void {
    this.requests.delete(id);
  }

  /** Drops the exchange and its socket. */
  abandon(id: JsonRpcId): void {
    const request = this.requests.get(id);
    if (this.requests.delete(id)) request?.destroy();
  }

  /** close(): every exchange goes. */
  abandonAll(): void {
    for (const request of this.requests.values()) request?.destroy();
    this.requests.clear();
  }

  /** For tests: how many exchanges are open. */
  get size(): number {
    return this.requests.size;
  }
}

/**
 * Runs `run` with a signal that aborts when `own` or `shared` does, and lets go of both after.
 * Combined by hand: AbortSignal.any() over a long-lived source signal leaked its dependents in some
 * Node versions (nodejs/node#55351), and `shared` (a transport's close signal) lives as long as it.
 */
export async function whileCombined(own: AbortSignal, shared: AbortSignal, run: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const exchange = new AbortController();
  const abort = (event: Event) => exchange.abort((event.target as AbortSignal).reason);
  if (own.aborted) exchange.abort(own.reason);
  own.addEventListener("abort", abort, { once: true });
  shared.addEventListener("abort", abort, { once: true });
  try {
    await run(exchange.signal);
  } finally {
    own.removeEventListener("abort", abort);
    shared.removeEventListener("abort", abort);
  }
}

/** A controller whose signal takes any number of listeners (a transport's close signal). */
export function unlimitedController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
