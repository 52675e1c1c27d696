/**
 * One 2026 client's call (tools/call, resources/read, prompts/get) that waits on it for input (MRTR, the 2026-07-28 era): the board call
 * runs on, and each sampling, elicitation or roots request an upstream server makes while it runs
 * (a JSON-RPC request from a 2025 server, an `input_required` entry from a 2026 one: the board hands
 * both to the call's handlers) waits here until the client's next round answers it.
 *
 * A round ends with the call's result when it finished, or with an `input_required` result naming the
 * requests asked since the last round. Requests asked in the same turn go out together (the board asks
 * a 2026 server's entries all at once). A 2026 server's request keeps its key; a 2025 server's gets
 * one of the gateway's (`sampling-1`), and no two requests waiting share one, so each answer is
 * matched to the request it answers.
 */
import type { CallHandlers } from "../client/call-handlers.js";
import type { HandlerContext } from "../client/options.js";
import type { LogParams } from "../connection/events.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ProtocolError, RequestCancelledError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";
import { HeldLogs } from "./held-logs.js";
import { pendingAnswer, type Settle } from "./pending-answer.js";

type Params = Record<string, unknown>;

interface Asked extends Settle<Params> {
  readonly method: string;
  readonly params: Params;
  /** In an `input_required` result already: the next round must answer it. */
  sent: boolean;
}

/** What a round ends with: the call's result, or the requests the client must answer first. */
export type Round = { result: Params } | { inputRequests: Record<string, { method: string; params: Params }> };

const KIND: Record<string, string> = { "sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots" };

export class SuspendedCall {
  /** Aborts the board call: the client went away mid-round, or never came back (input-required.ts). */
  readonly controller = new AbortController();
  private readonly asked = new Map<string, Asked>();
  private next = 0;
  private outcome: { result: Params } | { error: unknown } | undefined;
  private wake: (() => void) | undefined;
  /** Where the call's logs go now: the stream of the client's request whose round runs (none between rounds). */
  private logTo: ((params: LogParams) => void) | undefined;
  /**
   * Logs that came between rounds, for the next round's stream (src/gateway/held-logs.ts); only while
   * the last round asked for logs: otherwise the upstream was not asked for any either.
   */
  private heldLogs: HeldLogs | undefined;

  /**
   * Starts the call. `declared` says whether the client declared the capability a request needs; a
   * request it did not declare fails upstream with -32021, as a 2026 server refuses it.
   */
  constructor(
    /** The method and what it names (`tools/call deploy`): a retry must name the same. */
    readonly what: string,
    declared: (capability: string) => boolean,
    run: (handlers: CallHandlers, signal: AbortSignal) => Promise<Params>,
  ) {
    const ask = (method: string, params: Params, { signal, inputKey }: HandlerContext): Promise<never> => {
      const capability = KIND[method]!;
      if (!declared(capability))
        return Promise.reject(
          new ProtocolError(
            `The request did not declare the ${capability} capability, which this call needs (${method})`,
            ErrorCode.MissingRequiredClientCapability,
            { requiredCapabilities: { [capability]: {} } },
          ),
        );
      return this.ask(method, params, signal, inputKey) as Promise<never>;
    };
    const handlers: CallHandlers = {
      onSampling: (params, context) => ask("sampling/createMessage", params as unknown as Params, context),
      onElicitation: (params, context) => ask("elicitation/create", params as unknown as Params, context),
      onRoots: (context) => ask("roots/list", {}, context),
      // Between rounds no request of the client is open to carry a log: it waits for the next round.
      onLog: (params) => (this.logTo !== undefined ? this.logTo(params) : this.heldLogs?.hold(params)),
    };
    run(handlers, this.controller.signal).then(
      (result) => this.settle({ result }),
      (error: unknown) => this.settle({ error }),
    );
  }

  /**
   * A round starts: its request's stream takes the call's logs, what came between rounds first, oldest
   * first. `logTo` undefined: the request set no log level, so it gets none, and none are held after it.
   */
  startRound(logTo: ((params: LogParams) => void) | undefined): void {
    this.logTo = logTo;
    const held = this.heldLogs;
    this.heldLogs = logTo === undefined ? undefined : new HeldLogs();
    if (logTo !== undefined) held?.drainTo(logTo, this.what);
  }

  /** The round's request ended (its stream with it): logs wait for the next round. */
  endRound(): void {
    this.logTo = undefined;
  }

  /** Whether the call has finished (its result waits for the next round). */
  get finished(): boolean {
    return this.outcome !== undefined;
  }

  /** The client's answers to the last round: each goes upstream; a request it left unanswered fails. */
  answer(responses: unknown): void {
    const answers = isObject(responses) ? responses : {};
    for (const [key, asked] of this.asked) {
      if (!asked.sent) continue;
      this.asked.delete(key);
      const answer = answers[key];
      if (isObject(answer)) asked.resolve(answer);
      else asked.reject(new ProtocolError(`The client did not answer ${asked.method} (input "${key}")`, ErrorCode.InvalidParams));
    }
  }

  /** Waits for the call's result or new requests for the client; `signal` is the client's request. */
  async round(signal: AbortSignal): Promise<Round> {
    for (;;) {
      if (this.outcome !== undefined) {
        if ("error" in this.outcome) throw this.outcome.error;
        return this.outcome;
      }
      const fresh = [...this.asked].filter(([, asked]) => !asked.sent);
      if (fresh.length > 0) {
        for (const [, asked] of fresh) asked.sent = true;
        return { inputRequests: Object.fromEntries(fresh.map(([key, { method, params }]) => [key, { method, params }])) };
      }
      if (signal.aborted) throw new RequestCancelledError(`${this.what} was cancelled by the client`);
      await new Promise<void>((resolve) => {
        const stop = () => this.wake?.();
        signal.addEventListener("abort", stop, { once: true });
        this.wake = () => {
          this.wake = undefined;
          signal.removeEventListener("abort", stop);
          resolve();
        };
      });
      // Requests asked in the same turn (a 2026 server's several entries) go out in one round. A call
      // that just finished needs no wait: most 2026 calls never ask.
      if (this.outcome === undefined) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Ends it: the call is aborted and what still waits on the client fails with `reason`. */
  abandon(reason: Error): void {
    this.controller.abort(reason);
    for (const asked of this.asked.values()) asked.reject(reason);
    this.asked.clear();
  }

  /** `upstreamKey`: a 2026 server's own key for it, kept when free (the client sees what the server named). */
  private ask(method: string, params: Params, signal: AbortSignal, upstreamKey: string | undefined): Promise<Params> {
    let key = upstreamKey ?? `${KIND[method]}-${++this.next}`;
    while (this.asked.has(key)) key = `${KIND[method]}-${++this.next}`;
    const answer = pendingAnswer<Params>(
      signal,
      (settle) => this.asked.set(key, { method, params, sent: false, ...settle }),
      () => {
        this.asked.delete(key);
        return new RequestCancelledError(`${method} was cancelled by the server`);
      },
    );
    this.wake?.();
    return answer;
  }

  private settle(outcome: { result: Params } | { error: unknown }): void {
    this.outcome = outcome;
    this.wake?.();
  }
}
