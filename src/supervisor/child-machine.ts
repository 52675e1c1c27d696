/**
 * One supervised server, OTP-style: start it, watch it, and when it dies restart it after an
 * exponential backoff, unless it has died too often lately (the intensity limit), in which case it
 * is `down` until an operator restarts it or the configured cool-down ends.
 *
 *   starting --ok--> up --exit--> (intensity check) --> backoff --delay--> starting
 *      \                                   \
 *       `--fail--> (intensity check)        `--limit crossed--> down --RESTART / cool-down--> starting
 *   any --STOP--> stopping --> stopped
 *
 * The actual work (creating and closing the client) is injected, so the machine is testable alone and
 * the supervisor layer does not care what a child is.
 */
import { assign, emit, fromCallback, fromPromise, setup, type AnyEventObject } from "xstate";
import { Backoff, type BackoffPolicy } from "./backoff.js";
import { RestartIntensity, type RestartIntensityLimit } from "./restart-intensity.js";
import { asError } from "../util/guards.js";

export interface ChildWork {
  /** Starts the child; resolves once it is serving. */
  start(): Promise<void>;
  /** Calls `exited(error)` once when the running child dies; returns a function that stops watching. */
  watch(exited: (error: Error) => void): () => void;
  /** Stops the child (idempotent). */
  stop(): Promise<void>;
  /** The reason to go `down` at once when restarting cannot cure `error` (authorization required); else undefined. */
  permanent?(error: Error): string | undefined;
}

export interface ChildSpec {
  name: string;
  work: ChildWork;
  restart: RestartIntensityLimit & { backoff: BackoffPolicy; cooldownMs?: number };
}

export type ChildStatus = "starting" | "up" | "backoff" | "down" | "stopping" | "stopped";

/** What a child tells the world (emitted; the supervisor relays them). */
export type ChildEmitted =
  | { type: "child.up"; name: string; restarts: number }
  | { type: "child.exit"; name: string; error: Error }
  | { type: "child.restart"; name: string; attempt: number; delayMs: number; error: Error }
  | { type: "child.down"; name: string; reason: string; error: Error | undefined }
  | { type: "child.stopped"; name: string };

export interface ChildContext {
  name: string;
  work: ChildWork;
  intensity: RestartIntensity;
  backoff: Backoff;
  cooldownMs: number | undefined;
  lastError: Error | undefined;
  /** Restarts over the child's whole life (status reports it). */
  restarts: number;
  delayMs: number;
  downReason: string | undefined;
}

type ChildEvent =
  | { type: "STOP" }
  | { type: "RESTART" }
  | { type: "EXITED"; error: Error };

export const childMachine = setup({
  types: {
    context: {} as ChildContext,
    events: {} as ChildEvent,
    input: {} as ChildSpec,
    emitted: {} as ChildEmitted,
  },
  actors: {
    startChild: fromPromise<void, ChildWork>(({ input }) => input.start()),
    stopChild: fromPromise<void, ChildWork>(({ input }) => input.stop()),
    watchChild: fromCallback<AnyEventObject, ChildWork>(({ input, sendBack }) =>
      input.watch((error) => sendBack({ type: "EXITED", error })),
    ),
  },
  guards: {
    mayRestart: ({ context }) => context.downReason === undefined,
    hasCooldown: ({ context }) => context.cooldownMs !== undefined,
  },
  delays: {
    restartDelay: ({ context }) => context.delayMs,
    cooldown: ({ context }) => context.cooldownMs ?? 0,
  },
}).createMachine({
  id: "child",
  initial: "starting",
  context: ({ input }) => ({
    name: input.name,
    work: input.work,
    intensity: new RestartIntensity({ maxRestarts: input.restart.maxRestarts, withinMs: input.restart.withinMs }),
    backoff: new Backoff(input.restart.backoff),
    cooldownMs: input.restart.cooldownMs,
    lastError: undefined,
    restarts: 0,
    delayMs: 0,
    downReason: undefined,
  }),
  on: {
    STOP: ".stopping",
  },
  states: {
    starting: {
      invoke: {
        src: "startChild",
        input: ({ context }) => context.work,
        onDone: "up",
        onError: {
          target: "deciding",
          actions: assign({ lastError: ({ event }) => asError(event.error) }),
        },
      },
    },
    up: {
      entry: [
        ({ context }) => context.backoff.reset(),
        emit(({ context }) => ({ type: "child.up" as const, name: context.name, restarts: context.restarts })),
      ],
      invoke: { src: "watchChild", input: ({ context }) => context.work },
      on: {
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
      entry: assign({
        downReason: ({ context }) => {
          const permanent = context.lastError === undefined ? undefined : context.work.permanent?.(context.lastError);
          if (permanent !== undefined) return permanent;
          const verdict = context.intensity.tryRestart();
          return verdict.allowed ? undefined : verdict.reason;
        },
      }),
      always: [
        {
          guard: "mayRestart",
          target: "backoff",
          actions: [
            assign({
              delayMs: ({ context }) => context.backoff.next(),
              restarts: ({ context }) => context.restarts + 1,
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
      invoke: { src: "stopChild", input: ({ context }) => context.work },
      after: { restartDelay: "starting" },
      on: { RESTART: "starting" },
    },
    down: {
      entry: emit(({ context }) => ({
        type: "child.down" as const,
        name: context.name,
        reason: context.downReason ?? "failed",
        error: context.lastError,
      })),
      invoke: { src: "stopChild", input: ({ context }) => context.work },
      on: {
        RESTART: { target: "starting", actions: ({ context }) => resetLimits(context) },
      },
      after: {
        cooldown: { guard: "hasCooldown", target: "starting", actions: ({ context }) => resetLimits(context) },
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

function resetLimits(context: ChildContext): void {
  context.intensity.reset();
  context.backoff.reset();
  context.downReason = undefined;
}
