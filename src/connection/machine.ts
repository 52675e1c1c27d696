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
 * raw pipe ~11 us). The machine does the waiting through invoked promises supplied by the connection.
 */
import { assign, createActor, fromCallback, fromPromise, setup, type AnyActorRef } from "xstate";
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
  { type: "CONNECT" } | { type: "CLOSE" } | { type: "TRANSPORT_CLOSED"; error?: McpError } | { type: "SESSION_EXPIRED"; error: McpError };

export type ConnectionState = "idle" | "connecting" | "initializing" | "ready" | "closing" | "closed" | "failed";

export const connectionMachine = setup({
  types: {
    context: {} as ConnectionContext,
    events: {} as ConnectionEvent,
    input: {} as ConnectionMachineInput,
  },
  actors: {
    openTransport: fromPromise<void, ConnectionMachineWork>(({ input }) => input.openTransport()),
    negotiate: fromPromise<Negotiated, ConnectionMachineWork>(({ input }) => input.negotiate()),
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
      invoke: {
        src: "openTransport",
        input: ({ context }) => context.work,
        onDone: "initializing",
        onError: { target: "failed", actions: assign({ error: ({ event }) => asError(event.error) }) },
      },
      on: {
        TRANSPORT_CLOSED: { target: "failed", actions: assign({ error: ({ event }) => event.error ?? closedUnexpectedly() }) },
      },
    },
    initializing: {
      invoke: {
        src: "negotiate",
        input: ({ context }) => context.work,
        onDone: { target: "ready", actions: assign({ negotiated: ({ event }) => event.output }) },
        onError: { target: "failed", actions: assign({ error: ({ event }) => asError(event.error) }) },
      },
      on: {
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
