/**
 * The supervisor: an XState actor that runs one child actor per child spec (one_for_one: a child's
 * death restarts that child only, by the policy each child carries), relays what the children report,
 * forwards operator commands, and on STOP stops every child and finishes once all have stopped.
 *
 * The children are not in the supervisor's own `children`: XState copies that object whenever one
 * child stops, which made stopping 10,000 servers quadratic (a minute). They belong to one invoked
 * actor (`children` below) instead, parented to it so they all share the supervisor's actor system
 * (a system of their own would cost ~1.7 KiB per server), and it counts them as they finish.
 */
import { createActor, emit, fromCallback, sendTo, setup, type ActorRefFrom, type AnyEventObject } from "xstate";
import { childMachine, type ChildEmitted, type ChildSpec } from "./child-machine.js";

export type ChildRef = ActorRefFrom<typeof childMachine>;

export interface SupervisorInput {
  children: ChildSpec[];
  /**
   * Hears what the children emit, straight from each child, instead of the supervisor emitting it:
   * relaying through the supervisor cost one transition of its machine per child event, a share of
   * starting 10,000 servers. Unset: the supervisor emits them (what its own listeners see).
   */
  relay?: ((event: ChildEmitted) => void) | undefined;
}

type SupervisorEvent =
  | { type: "RESTART"; name: string }
  | { type: "STOP" }
  | { type: "CHILD"; event: ChildEmitted }
  | { type: "ALL_STOPPED" }
  | { type: "CHILD_FAILED"; error: unknown };

/** What the supervisor tells its children's host. */
type HostCommand = { type: "RESTART"; name: string } | { type: "STOP" };

const DONE = "xstate.done.actor.";
const FAILED = "xstate.error.actor.";

/**
 * Runs the children: relays each one's emitted events as CHILD, forwards RESTART to the named one and
 * STOP to all, and says ALL_STOPPED once every child has reached its final state after a STOP.
 */
const childHost = fromCallback<AnyEventObject, SupervisorInput>(({ input, self, sendBack, receive }) => {
  const children = new Map<string, ChildRef>();
  for (const spec of input.children) {
    const ref = createActor(childMachine, { id: spec.name, input: spec, parent: self });
    const relay = input.relay;
    ref.on("*", relay ? (event) => relay(event) : (event) => sendBack({ type: "CHILD", event: event }));
    children.set(spec.name, ref);
  }
  let running = children.size;
  let stopping = false;
  receive((event) => {
    const command = event as HostCommand;
    if (command.type === "RESTART") {
      children.get(command.name)?.send({ type: "RESTART" });
    } else if (command.type === "STOP") {
      stopping = true;
      if (running === 0) sendBack({ type: "ALL_STOPPED" });
      for (const child of children.values()) child.send({ type: "STOP" });
    } else if (event.type.startsWith(DONE) || event.type.startsWith(FAILED)) {
      running--;
      if (event.type.startsWith(FAILED)) sendBack({ type: "CHILD_FAILED", error: (event as { error?: unknown }).error });
      if (stopping && running === 0) sendBack({ type: "ALL_STOPPED" });
    }
  });
  for (const child of children.values()) child.start();
  // The supervisor was stopped without a STOP: the children still stop (and close what they run).
  return () => {
    if (stopping) return;
    for (const child of children.values()) if (child.getSnapshot().status === "active") child.send({ type: "STOP" });
  };
});

export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorInput,
    events: {} as SupervisorEvent,
    input: {} as SupervisorInput,
    emitted: {} as ChildEmitted,
  },
  actors: { childHost },
}).createMachine({
  id: "supervisor",
  initial: "running",
  context: ({ input }) => ({ children: input.children, relay: input.relay }),
  invoke: { id: "children", src: "childHost", input: ({ context }) => context },
  on: {
    CHILD: { actions: emit(({ event }) => event.event) },
    // A child actor that failed (an invalid policy, say) fails the supervisor, as an error should.
    CHILD_FAILED: {
      actions: ({ event }) => {
        throw event.error;
      },
    },
  },
  states: {
    running: {
      on: {
        RESTART: { actions: sendTo("children", ({ event }) => event) },
        STOP: "stopping",
      },
    },
    stopping: {
      entry: sendTo("children", { type: "STOP" }),
      on: { ALL_STOPPED: "stopped" },
    },
    stopped: { type: "final" },
  },
});
