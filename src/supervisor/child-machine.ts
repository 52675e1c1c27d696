/**
 * One supervised server, OTP-style: start it, watch it, and when it dies restart it after an
 * exponential backoff, unless it has died too often lately (the intensity limit) or failed in a way no
 * restart can fix (start-failure.ts), in which case it is `down` until an operator restarts it or the
 * configured cool-down ends.
 *
 *   starting --ok--> up --exit--> deciding --> backoff --delay--> starting
 *      |  \                          \
 *      |   `--fail / start timeout--> deciding --limit crossed--> down --RESTART / cool-down--> starting
 *      `--permanent failure----------------------------------------> down
 *   up --healthyAfterMs--> (backoff starts afresh)
 *   any --STOP--> stopping --> stopped
 *
 * The context is plain data (the restart history, the backoff attempt), replaced through `assign`
 * and never mutated. The clock and the random source are inputs, so tests drive the machine with fake
 * timers and a fixed jitter. The actual work (creating and closing the client) is injected, so the
 * machine is testable alone and the supervisor layer does not care what a child is.
 */
import { assign, emit, fromCallback, fromPromise, setup, type AnyEventObject } from "xstate";
import { TransportError } from "../jsonrpc/errors.js";
import { asError } from "../util/guards.js";
import { MAX_TIMER_MS } from "../util/timers.js";
import { assertBackoffPolicy, FRESH_BACKOFF, nextBackoff, type BackoffPolicy, type BackoffState, type RandomSource } from "./backoff.js";
import { assertRestartIntensityLimit, tryRestart, type Clock, type RestartHistory, type RestartIntensityLimit } from "./restart-intensity.js";
import { permanentStartFailure } from "./start-failure.js";

export interface ChildWork {
  /** Starts the child; resolves once it is serving. */
  start(): Promise<void>;
  /** Calls `exited(error)` once when the running child dies; returns a function that stops watching. */
  watch(exited: (error: Error) => void): () => void;
  /** Stops the child (idempotent). */
  stop(): Promise<void>;
}

export interface ChildRestartPolicy extends RestartIntensityLimit {
  backoff: BackoffPolicy;
  /** Once `down`, start again after this many ms (with a fresh window). Undefined: only on RESTART. */
  cooldownMs?: number;
  /** The backoff starts afresh once the child has stayed up this long (default 10000 ms). */
  healthyAfterMs?: number;
}

export interface ChildSpec {
  name: string;
  work: ChildWork;
  restart: ChildRestartPolicy;
  /** A start that has not finished after this many ms fails (and is restarted). Undefined: no bound. */
  startTimeoutMs?: number;
  /** The intensity window's clock (default Date.now). */
  now?: Clock;
  /** The backoff jitter's random source (default Math.random). */
  random?: RandomSource;
}

export const DEFAULT_HEALTHY_AFTER_MS = 10_000;

export type ChildStatus = "starting" | "up" | "backoff" | "down" | "stopping" | "stopped";

/** What a child tells the world (emitted; the supervisor relays them). */
export type ChildEmitted =
  | { type: "child.up"; name: string; restarts: number }
  | { type: "child.exit"; name: string; error: Error }
  | { type: "child.restart"; name: string; attempt: number; delayMs: number; error: Error }
  | { type: "child.down"; name: string; reason: string; error: Error | undefined }
  | { type: "child.stopped"; name: string };

export interface ChildContext {
  readonly name: string;
  readonly work: ChildWork;
  readonly policy: ChildRestartPolicy;
  readonly startTimeoutMs: number | undefined;
  readonly now: Clock;
  readonly random: RandomSource;
  /** Restarts inside the intensity window. */
  history: RestartHistory;
  backoff: BackoffState;
  lastError: Error | undefined;
  /** Restarts over the child's whole life (status reports it). */
  restarts: number;
  delayMs: number;
  downReason: string | undefined;
  /** What `up` holds while the child runs; the one mutable part of the context (see `hold`). */
  readonly lease: Lease;
}

/** The watch on the running child and its healthy-after timer, taken on entering `up`, released on leaving it. */
interface Lease {
  unwatch: (() => void) | undefined;
  healthy: ReturnType<typeof setTimeout> | undefined;
}

type ChildEvent =
  | { type: "STOP" }
  | { type: "RESTART" }
  | { type: "EXITED"; error: Error }
  /** From the invoked actors' timers: stayed up long enough, restart delay over, cool-down over. */
  | { type: "HEALTHY" }
  | { type: "RETRY" }
  | { type: "COOLDOWN_OVER" };

/**
 * An optional duration: unset (or more than setTimeout can honour) arms no timer at all, rather than one
 * that waits 24 days holding the event loop open.
 */
const armed = (ms: number | undefined): ms is number => ms !== undefined && ms <= MAX_TIMER_MS;

/** What `board.restart(name)` or a cool-down gives a down child: a clean slate. */
const freshLimits = { history: [] as RestartHistory, backoff: FRESH_BACKOFF, downReason: undefined };

/**
 * Each timer lives in the actor invoked by the state it bounds, not in an XState `after`: XState keeps
 * every delayed event of an actor system in one object, and each actor that stops (every finished start
 * or stop promise) scans that whole object, so with 10,000 supervised servers sharing the supervisor's
 * system a start or a stop of all of them was quadratic (tens of seconds). Here a timer is cleared with
 * the actor that armed it, and the system schedules nothing.
 */
function after(ms: number | undefined, fire: () => void): () => void {
  if (!armed(ms)) return () => {};
  const timer = setTimeout(fire, Math.max(0, ms));
  return () => clearTimeout(timer);
}

interface StartInput {
  work: ChildWork;
  name: string;
  startTimeoutMs: number | undefined;
}

/** The child's start, failing with a TransportError once `startTimeoutMs` has passed (the start is then abandoned). */
function startWithin({ work, name, startTimeoutMs }: StartInput, signal: AbortSignal): Promise<void> {
  const started = work.start();
  if (!armed(startTimeoutMs)) return started;
  return new Promise<void>((resolve, reject) => {
    const cancel = after(startTimeoutMs, () => {
      reject(
        new TransportError(
          `server "${name}" did not finish starting within ${startTimeoutMs} ms (startTimeoutMs); it is restarted. Raise startTimeoutMs if it needs longer`,
          { delivered: false, server: name },
        ),
      );
    });
    const done = () => {
      cancel();
      signal.removeEventListener("abort", done);
    };
    signal.addEventListener("abort", done, { once: true });
    started.then(
      () => {
        done();
        resolve();
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

/** Stops the child's work (a failure to stop is the work's own business) and fires `event` after `ms`. */
const stopThenWait = fromCallback<AnyEventObject, { work: ChildWork; ms: number | undefined; event: "RETRY" | "COOLDOWN_OVER" }>(({ input, sendBack }) => {
  void input.work.stop().catch(() => {});
  return after(input.ms, () => sendBack({ type: input.event }));
});

export const childMachine = setup({
  types: {
    context: {} as ChildContext,
    events: {} as ChildEvent,
    input: {} as ChildSpec,
    emitted: {} as ChildEmitted,
  },
  actors: {
    startChild: fromPromise<void, StartInput>(({ input, signal }) => startWithin(input, signal)),
    stopChild: fromPromise<void, ChildWork>(({ input }) => input.stop()),
    stopThenWait,
  },
  actions: {
    /**
     * Watches the running child and arms its healthy-after timer. Entry and exit actions, not an
     * invoked actor: an actor costs ~1.4 KiB, and `up` is where a supervised server spends its life, so
     * that was a tenth of a server's heap. (An actor stopped from outside, not by STOP, skips exit
     * actions; the supervisor always stops its children with STOP.)
     */
    hold: ({ context, self }) => {
      const lease = context.lease;
      lease.unwatch = context.work.watch((error) => self.send({ type: "EXITED", error }));
      const ms = context.policy.healthyAfterMs ?? DEFAULT_HEALTHY_AFTER_MS;
      if (armed(ms)) lease.healthy = setTimeout(() => self.send({ type: "HEALTHY" }), Math.max(0, ms));
    },
    release: ({ context }) => {
      const lease = context.lease;
      clearTimeout(lease.healthy);
      lease.unwatch?.();
      lease.healthy = lease.unwatch = undefined;
    },
  },
  guards: {
    mayRestart: ({ context }) => context.downReason === undefined,
  },
}).createMachine({
  id: "child",
  initial: "starting",
  context: ({ input }) => {
    assertRestartIntensityLimit(input.restart);
    assertBackoffPolicy(input.restart.backoff);
    return {
      name: input.name,
      work: input.work,
      policy: input.restart,
      startTimeoutMs: input.startTimeoutMs,
      now: input.now ?? Date.now,
      random: input.random ?? Math.random,
      history: [],
      backoff: FRESH_BACKOFF,
      lastError: undefined,
      restarts: 0,
      delayMs: 0,
      downReason: undefined,
      lease: { unwatch: undefined, healthy: undefined },
    };
  },
  on: {
    STOP: ".stopping",
  },
  states: {
    starting: {
      invoke: {
        src: "startChild",
        input: ({ context }) => ({ work: context.work, name: context.name, startTimeoutMs: context.startTimeoutMs }),
        onDone: "up",
        onError: [
          {
            // No restart can fix it: down at once, with what to change, and the budget left untouched.
            guard: ({ event }) => permanentStartFailure(event.error) !== undefined,
            target: "down",
            actions: assign({
              lastError: ({ event }) => asError(event.error),
              downReason: ({ event }) => permanentStartFailure(event.error),
            }),
          },
          { target: "deciding", actions: assign({ lastError: ({ event }) => asError(event.error) }) },
        ],
      },
    },
    up: {
      entry: [emit(({ context }) => ({ type: "child.up" as const, name: context.name, restarts: context.restarts })), "hold"],
      exit: "release",
      on: {
        // Only a child that stayed up this long counts as healthy; one that crashes sooner keeps its
        // growing backoff (resetting on every `up` restarted a crash loop every initialMs).
        HEALTHY: { actions: assign({ backoff: FRESH_BACKOFF }) },
        EXITED: {
          target: "deciding",
          actions: [
            assign({ lastError: ({ event }) => event.error }),
            emit(({ context, event }) => ({ type: "child.exit" as const, name: context.name, error: event.error })),
          ],
        },
        RESTART: "restarting",
      },
    },
    /** An operator asked for a restart of a running child: stop it, then start afresh. */
    restarting: {
      invoke: { src: "stopChild", input: ({ context }) => context.work, onDone: "starting", onError: "starting" },
    },
    deciding: {
      // The intensity check records the restart, so it runs once, here, and the guard only reads it.
      entry: assign(({ context }) => {
        const verdict = tryRestart(context.history, context.policy, context.now());
        return { history: verdict.history, downReason: verdict.allowed ? undefined : verdict.reason };
      }),
      always: [
        {
          guard: "mayRestart",
          target: "backoff",
          actions: [
            assign(({ context }) => {
              const next = nextBackoff(context.backoff, context.policy.backoff, context.random);
              return { delayMs: next.delayMs, backoff: next.state, restarts: context.restarts + 1 };
            }),
            emit(({ context }) => ({
              type: "child.restart" as const,
              name: context.name,
              attempt: context.restarts,
              delayMs: context.delayMs,
              error: context.lastError ?? new Error("unknown failure"),
            })),
          ],
        },
        { target: "down" },
      ],
    },
    backoff: {
      // The failed client is released before waiting, so nothing of it lingers during the delay.
      invoke: { src: "stopThenWait", input: ({ context }) => ({ work: context.work, ms: context.delayMs, event: "RETRY" as const }) },
      on: { RETRY: "starting", RESTART: "starting" },
    },
    down: {
      entry: emit(({ context }) => ({
        type: "child.down" as const,
        name: context.name,
        reason: context.downReason ?? "failed",
        error: context.lastError,
      })),
      invoke: { src: "stopThenWait", input: ({ context }) => ({ work: context.work, ms: context.policy.cooldownMs, event: "COOLDOWN_OVER" as const }) },
      on: {
        RESTART: { target: "starting", actions: assign(freshLimits) },
        COOLDOWN_OVER: { target: "starting", actions: assign(freshLimits) },
      },
    },
    stopping: {
      invoke: { src: "stopChild", input: ({ context }) => context.work, onDone: "stopped", onError: "stopped" },
      on: { STOP: {}, RESTART: {} },
    },
    stopped: {
      type: "final",
      entry: emit(({ context }) => ({ type: "child.stopped" as const, name: context.name })),
    },
  },
});
