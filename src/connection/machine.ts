/**
 * The lifecycle of one MCP connection as an XState machine:
 *
 *   idle -> connecting -> initializing -> ready -> closing -> closed
 *                 \            \   ^        |
 *                  \            \   \-------/ (session expired: initialize again)
 *                   `------------`----------> failed (final; the error is in the context)
 *
 * Only lifecycle changes are events. Requests and responses never pass through the machine: they go
 * straight to the RequestTable and the transport (an XState event costs ~2.5 us, a whole request over a
 * raw pipe ~11 us). The machine does the waiting through promises supplied by the connection: opening
 * the transport and negotiating are started by entry actions that report back with an event, not by
 * invoked promise actors. An actor (with its scope, snapshot, registration and abort controller) was
 * the largest cost of starting a connection, and 10,000 supervised servers paid it twice each. No
 * stale report can reach a later state: `connecting` is entered once, and `initializing` is left
 * for `ready` only when its promise resolved (other exits end in `closing`, `closed` or `failed`,
 * which ignore these events).
 */
import { assign, createActor, fromCallback, fromPromise, setup, type ActorRef, type AnyActorRef, type Snapshot } from "xstate";
import { asError } from "../util/guards.js";
import type { McpError } from "../jsonrpc/errors.js";
import type { Negotiated } from "./eras/dialect.js";

/** What the machine asks of its connection: the work behind each state. */
export interface ConnectionMachineWork {
  openTransport(): Promise<void>;
  negotiate(): Promise<Negotiated>;
  /** Rejects old-session requests and forgets the session before a new `initialize`. */
  beginNewSession(error: McpError): void;
  shutdown(): Promise<void>;
}

export interface ConnectionMachineInput {
  work: ConnectionMachineWork;
}

export interface ConnectionContext {
  work: ConnectionMachineWork;
  /** The server facts of the last negotiation; the connection reads them on entering `ready`. */
  negotiated: Negotiated | undefined;
  /** Why the connection failed; the connection reads it on entering `failed`. */
  error: Error | undefined;
}

export type ConnectionEvent =
  | { type: "CONNECT" }
  | { type: "CLOSE" }
  | { type: "TRANSPORT_CLOSED"; error?: McpError }
  | { type: "SESSION_EXPIRED"; error: McpError }
  /** Reports of the work started on entering `connecting` and `initializing`. */
  | { type: "OPENED" }
  | { type: "NEGOTIATED"; negotiated: Negotiated }
  | { type: "WORK_FAILED"; error: unknown };

export type ConnectionState = "idle" | "connecting" | "initializing" | "ready" | "closing" | "closed" | "failed";

export const connectionMachine = setup({
  types: {
    context: {} as ConnectionContext,
    events: {} as ConnectionEvent,
    input: {} as ConnectionMachineInput,
  },
  actions: {
    open: ({ context, self }) =>
      report(
        self,
        () => context.work.openTransport(),
        (): ConnectionEvent => ({ type: "OPENED" }),
      ),
    negotiate: ({ context, self }) =>
      report(
        self,
        () => context.work.negotiate(),
        (negotiated): ConnectionEvent => ({ type: "NEGOTIATED", negotiated }),
      ),
  },
  actors: {
    shutdown: fromPromise<void, ConnectionMachineWork>(({ input }) => input.shutdown()),
  },
}).createMachine({
  id: "connection",
  initial: "idle",
  context: ({ input }) => ({ work: input.work, negotiated: undefined, error: undefined }),
  on: {
    CLOSE: ".closing",
  },
  states: {
    idle: {
      on: { CONNECT: "connecting", CLOSE: "closed" },
    },
    connecting: {
      entry: "open",
      on: {
        OPENED: "initializing",
        WORK_FAILED: { target: "failed", actions: assign({ error: ({ event }) => asError(event.error) }) },
        TRANSPORT_CLOSED: { target: "failed", actions: assign({ error: ({ event }) => event.error ?? closedUnexpectedly() }) },
      },
    },
    initializing: {
      entry: "negotiate",
      on: {
        NEGOTIATED: { target: "ready", actions: assign({ negotiated: ({ event }) => event.negotiated }) },
        WORK_FAILED: { target: "failed", actions: assign({ error: ({ event }) => asError(event.error) }) },
        TRANSPORT_CLOSED: { target: "failed", actions: assign({ error: ({ event }) => event.error ?? closedUnexpectedly() }) },
      },
    },
    ready: {
      on: {
        TRANSPORT_CLOSED: { target: "failed", actions: assign({ error: ({ event }) => event.error ?? closedUnexpectedly() }) },
        SESSION_EXPIRED: {
          target: "initializing",
          actions: ({ context, event }) => context.work.beginNewSession(event.error),
        },
      },
    },
    closing: {
      invoke: {
        src: "shutdown",
        input: ({ context }) => context.work,
        onDone: "closed",
        onError: "closed",
      },
      on: { CLOSE: {}, TRANSPORT_CLOSED: {} },
    },
    closed: { type: "final" },
    failed: { type: "final" },
  },
});

/**
 * Runs `work` and sends its outcome to `self` while it is
 * still running: a connection that ended meanwhile (closed, failed) hears nothing, as an invoked actor
 * stopped with its state would not. A synchronous throw (a custom transport's start) is a failure too.
 */
function report<T>(self: ActorRef<Snapshot<unknown>, ConnectionEvent>, work: () => Promise<T>, done: (value: T) => ConnectionEvent): void {
  const send = (event: ConnectionEvent) => {
    if (self.getSnapshot().status === "active") self.send(event);
  };
  let running: Promise<T>;
  try {
    running = work();
  } catch (error) {
    running = Promise.reject(error);
  }
  running.then(
    (value) => send(done(value)),
    (error: unknown) => send({ type: "WORK_FAILED", error }),
  );
}

function closedUnexpectedly(): Error {
  return new Error("The transport closed unexpectedly");
}

let host: AnyActorRef | undefined;

/**
 * The parent of every connection actor, so that they all share one XState actor system: a root actor
 * builds a system of its own (maps, a scheduler, a dozen closures: ~1.7 KiB), which a board of 10,000
 * servers paid 10,000 times. The host does nothing; a connection actor's end (its done or error event)
 * reaches it and is dropped, while the connection hears of it through its own subscription. The
 * machine schedules no delayed events, so sharing the system's scheduler costs nothing.
 */
export function connectionActorHost(): AnyActorRef {
  if (host === undefined) {
    host = createActor(fromCallback(() => {}));
    host.start();
  }
  return host;
}
