/**
 * MRTR pass-through for 2026-07-28 clients: a tools/call, resources/read or prompts/get that causes
 * an upstream server request gets an `input_required` result, and the client's retry (`inputResponses`, `requestState`) carries the
 * answers upstream and waits for the result, or the next round.
 *
 * The state stays here, not in the client's hands: an upstream request from a 2025 server is a live
 * JSON-RPC request on a connection, which no token could carry. `requestState` is an unguessable id
 * (32 random bytes) of the suspended call, bound to the principal that made it, good for one retry
 * (each round gets a fresh id, so an old state cannot be replayed) and forgotten after `ttlMs` without
 * one (the call is then cancelled upstream). A forged, expired, reused or another principal's state is
 * -32602. A retry that reaches another replica of the gateway is passed to this process through the
 * fleet (replica-rounds.ts), so a 2026 client's rounds need no affinity.
 */
import { randomBytes } from "node:crypto";
import type { CallHandlers } from "../client/call-handlers.js";
import type { LogParams } from "../connection/events.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ProtocolError, RequestCancelledError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";
import type { Downstream } from "./downstream.js";
import { SuspendedCall, type Round } from "./suspended-call.js";

type Params = Record<string, unknown>;

/** How long a call waits for the client's next round by default. */
export const INPUT_ROUND_TTL_MS = 5 * 60_000;
/** Calls one principal may have waiting on it at once: a client that never retries cannot fill memory. */
export const MAX_SUSPENDED_PER_PRINCIPAL = 64;

interface Waiting {
  readonly call: SuspendedCall;
  readonly principal: string | undefined;
  readonly timer: NodeJS.Timeout;
}

const stale = () =>
  new ProtocolError(
    "Invalid params: requestState is unknown, expired, already used or another principal's, or the gateway replica holding it is gone: make the call again",
    ErrorCode.InvalidParams,
  );

/** A client's retry as one replica passes it to the others. */
export interface RelayedRound {
  readonly state: string;
  readonly principal: string | undefined;
  readonly what: string;
  readonly inputResponses: unknown;
}

export class InputRounds {
  private readonly waiting = new Map<string, Waiting>();
  private readonly perPrincipal = new Map<string | undefined, number>();
  /**
   * Set on a replica (replica-rounds.ts): a retry whose call another process holds runs there, its logs
   * coming back to `logTo`; undefined when none holds it.
   */
  relay: ((round: RelayedRound, signal: AbortSignal, logTo?: (params: LogParams) => void) => Promise<Params | undefined>) | undefined;
  /** Set on a replica (replica-rounds.ts): this process's name among the replicas, the head of each state it gives. */
  tag: string | undefined;

  constructor(private readonly ttlMs = INPUT_ROUND_TTL_MS) {}

  /**
   * A 2026 client's request `what` (its method and the tool, prompt or URI it names): a new call (`run`
   * starts it on the board with the handlers given), or, with `requestState`, the next round of one
   * waiting on it. `logTo` takes the call's log messages while this request's round runs.
   */
  async call(
    what: string,
    params: Params,
    downstream: Downstream,
    signal: AbortSignal,
    run: (handlers: CallHandlers, signal: AbortSignal) => Promise<Params>,
    logTo?: (params: LogParams) => void,
  ): Promise<Params> {
    const state = params.requestState;
    if (state === undefined) {
      const declared = (capability: string) => isObject(downstream.capabilities?.[capability]);
      return this.resume(new SuspendedCall(what, declared, run), downstream.principal, signal, logTo);
    }
    // A state this replica gave and no longer holds is stale at once; another's is asked of its holder.
    if (this.relay !== undefined && typeof state === "string" && !this.waiting.has(state) && InputRounds.holderOf(state) !== this.tag) {
      const relayed = await this.relay({ state, principal: downstream.principal, what, inputResponses: params.inputResponses }, signal, logTo);
      if (relayed === undefined) throw stale();
      return relayed;
    }
    return this.resume(this.take(state, downstream.principal, what, params.inputResponses), downstream.principal, signal, logTo);
  }

  /** A retry another replica received for a call this process holds: its round (its logs to `logTo`); undefined when none is held here. */
  resumeRelayed(round: RelayedRound, signal: AbortSignal, logTo?: (params: LogParams) => void): Promise<Params> | undefined {
    if (!this.waiting.has(round.state)) return undefined;
    return (async () => this.resume(this.take(round.state, round.principal, round.what, round.inputResponses), round.principal, signal, logTo))();
  }

  /** Runs one round of `call` for a client's request; its logs go to `logTo` while it runs (none: the request set no log level). */
  private async resume(call: SuspendedCall, principal: string | undefined, signal: AbortSignal, logTo?: (params: LogParams) => void): Promise<Params> {
    call.startRound(logTo);
    // The client closing its request cancels the call, as it would a call without rounds.
    const cancel = () => call.abandon(new RequestCancelledError(`${call.what} was cancelled by the client`));
    signal.addEventListener("abort", cancel, { once: true });
    let round: Round;
    try {
      round = await call.round(signal);
    } finally {
      signal.removeEventListener("abort", cancel);
      call.endRound();
    }
    if ("result" in round) return round.result;
    return { resultType: "input_required", inputRequests: round.inputRequests, requestState: this.keep(call, principal) };
  }

  /** Calls waiting for a client's next round. */
  get size(): number {
    return this.waiting.size;
  }

  /** The gateway closes: every waiting call is cancelled upstream. */
  close(): void {
    for (const id of [...this.waiting.keys()]) this.forget(id)?.call.abandon(new RequestCancelledError("The gateway closed"));
  }

  private keep(call: SuspendedCall, principal: string | undefined): string {
    const count = this.perPrincipal.get(principal) ?? 0;
    if (count >= MAX_SUSPENDED_PER_PRINCIPAL) {
      call.abandon(new RequestCancelledError("Too many calls waiting for input"));
      throw new ProtocolError(
        `Too many calls waiting for this client's input (limit ${MAX_SUSPENDED_PER_PRINCIPAL}); answer or drop one first`,
        ErrorCode.ServerError,
      );
    }
    this.perPrincipal.set(principal, count + 1);
    const id = `${this.tag === undefined ? "" : `${this.tag}.`}${randomBytes(32).toString("base64url")}`;
    const timer = setTimeout(
      () => this.forget(id)?.call.abandon(new RequestCancelledError(`The client did not come back with its input within ${this.ttlMs} ms`)),
      this.ttlMs,
    );
    timer.unref();
    this.waiting.set(id, { call, principal, timer });
    return id;
  }

  private take(state: unknown, principal: string | undefined, what: string, inputResponses: unknown): SuspendedCall {
    const waiting = typeof state === "string" ? this.waiting.get(state) : undefined;
    if (waiting === undefined || waiting.principal !== principal) throw stale();
    if (what !== waiting.call.what)
      throw new ProtocolError(`Invalid params: requestState belongs to ${waiting.call.what}, not ${what}`, ErrorCode.InvalidParams);
    this.forget(state as string);
    waiting.call.answer(inputResponses);
    return waiting.call;
  }

  /** The tag of the replica that gave `state` (its head before a "."), if it has one. */
  static holderOf(state: string): string | undefined {
    const dot = state.indexOf(".");
    return dot > 0 ? state.slice(0, dot) : undefined;
  }

  private forget(id: string): Waiting | undefined {
    const waiting = this.waiting.get(id);
    if (waiting === undefined) return undefined;
    this.waiting.delete(id);
    clearTimeout(waiting.timer);
    const left = (this.perPrincipal.get(waiting.principal) ?? 1) - 1;
    if (left === 0) this.perPrincipal.delete(waiting.principal);
    else this.perPrincipal.set(waiting.principal, left);
    return waiting;
  }
}
