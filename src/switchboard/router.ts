/**
 * Sends one call to the first server that can take it: the primary, then its fallbacks in order.
 * A server whose circuit is open is skipped; one that is restarting is waited for (up to the call's
 * timeout) when it is the last candidate or the policy says wait, unless it never came up; a lazy one
 * asleep is started and waited for. A failure moves the call on only when `fallbackVerdict` says that
 * is safe (never for tool or protocol errors, and for work that may already have run only when the
 * call is idempotent). Whether a call is idempotent may be looked up only when a failure makes it
 * matter, so the happy path never waits for a tool list.
 */
import type { McpClient } from "../client/client.js";
import { McpError, TransportError } from "../jsonrpc/errors.js";
import { CircuitOpenError } from "../supervisor/circuit-breaker.js";
import { fallbackVerdict, routeOrder } from "../supervisor/routing.js";
import type { ServerRuntime } from "./server-runtime.js";
import { asError } from "../util/guards.js";

export type WhileRestarting = "wait" | "fallback";

/**
 * Decides, at a failure after delivery, whether the call may run twice: `failed` is the server the call
 * just failed on, `next` the one it would move to; the answer must come within `remainingMs`.
 */
export type IdempotenceLookup = (failed: ServerRuntime, next: ServerRuntime, remainingMs: number) => Promise<boolean>;

export interface RouteOptions {
  /** The qualified name, for events and messages. */
  name: string;
  /** Known up front, or looked up when a failure needs it (once per call). */
  idempotent: boolean | IdempotenceLookup;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  whileRestarting: WhileRestarting;
  /** Servers tried, in order (filled in). */
  attempts: string[];
  /**
   * Whether the call can go to `server` without the server's own client being up: a principal's, made
   * on its own client with its own credentials (principals.ts). Such a call is handed `server.client`
   * as it is (maybe none) and does not use it.
   */
  standalone?: ((server: ServerRuntime) => boolean) | undefined;
  /**
   * Asked before each move to a fallback (the `beforeFallback` hook); `false` keeps the call where it
   * failed, and it rejects with that server's error. Unset: every safe move is made.
   */
  beforeFallback?: ((from: string, to: string, reason: string, error: Error) => Promise<boolean>) | undefined;
  onFallback(from: string, to: string, reason: string, error: Error): void;
}

export async function route<T>(
  primary: ServerRuntime,
  lookup: (name: string) => ServerRuntime | undefined,
  call: (client: McpClient, server: ServerRuntime) => Promise<T>,
  options: RouteOptions,
): Promise<T> {
  const order = routeOrder(primary.name, primary.entry.fallbacks)
    .map(lookup)
    .filter((runtime): runtime is ServerRuntime => runtime !== undefined && runtime.state !== "disabled");
  const deadline = Date.now() + options.timeoutMs;
  let idempotent = options.idempotent;
  let lastError: Error | undefined;
  for (const [i, server] of order.entries()) {
    const next = order[i + 1];
    const moveOn = async (reason: string, error: Error): Promise<void> => {
      lastError = error;
      if (next === undefined) return;
      if (options.beforeFallback !== undefined && !(await options.beforeFallback(server.name, next.name, reason, error))) throw withServer(error, server.name);
      options.onFallback(server.name, next.name, reason, error);
    };
    const ready = server.state === "up" && server.client !== undefined;
    const alone = !ready && options.standalone?.(server) === true;
    // A down or stopped server is not waited for: a call storm against it fails fast with its reason.
    // Nor is one restarting that never came up: its starts fail (a bad path, a missing token), and
    // waiting through its restart budget would hold the call for seconds to say the same.
    const gone = server.state === "down" || server.state === "stopped" || (server.state === "restarting" && server.neverUp);
    // A lazy server asleep (`idle`) is not away: a call is what starts it, so it is woken and waited
    // for even with fallbacks behind it (skipping it would leave it asleep for good).
    const wait = !ready && !alone && !gone && (server.state === "idle" || next === undefined || options.whileRestarting === "wait");
    if (!ready && !wait && !alone) {
      // Skipped without trying: says nothing new about the server's health, so the breaker is not told
      // (nor does it open and hide the down reason behind "circuit open").
      await moveOn(`server ${server.state}`, server.unavailable());
      continue;
    }
    if (!server.breaker.allow()) {
      await moveOn("circuit open", new CircuitOpenError(server.name, server.breaker.retryAfterMs()));
      continue;
    }
    let client: McpClient;
    if (ready || alone) {
      client = server.client!;
    } else {
      try {
        client = await server.whenUp(Math.max(0, deadline - Date.now()), options.signal);
      } catch (error) {
        server.breaker.onFailure(error);
        await moveOn(`server ${server.state}`, asError(error));
        continue;
      }
    }
    options.attempts.push(server.name);
    try {
      const result = await server.runLimited(() => call(client, server), options.signal, deadline);
      server.breaker.onSuccess();
      return result;
    } catch (error) {
      server.breaker.onFailure(error);
      let verdict = fallbackVerdict(error, { idempotent: idempotent === true });
      if (!verdict.move && next !== undefined && typeof idempotent === "function" && fallbackVerdict(error, { idempotent: true }).move) {
        // Only idempotence stands between this call and the fallback: look the tool up now.
        idempotent = await idempotent(server, next, Math.max(0, deadline - Date.now()));
        verdict = fallbackVerdict(error, { idempotent });
      }
      if (!verdict.move || next === undefined) throw withServer(error, server.name);
      await moveOn(verdict.reason, asError(error));
    }
  }
  throw lastError
    ? withServer(lastError, order[order.length - 1]?.name ?? primary.name)
    : new TransportError(`No server can take ${options.name}: "${primary.name}" and its fallbacks are disabled or unknown`, {
        delivered: false,
        server: primary.name,
      });
}

/** The error, naming the server it came from when it does not already. */
export function withServer(error: unknown, server: string): Error {
  if (error instanceof McpError && error.server === undefined) error.server = server;
  return asError(error);
}
