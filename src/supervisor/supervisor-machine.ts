/**
 * The supervisor: an XState actor that spawns one child actor per child spec (one_for_one: a child's
 * death restarts that child only, by the policy each child carries), relays what the children report,
 * forwards operator commands, and on STOP stops every child and finishes once all have stopped.
 */
import { assign, emit, enqueueActions, setup, type ActorRefFrom } from "xstate";
import { childMachine, type ChildEmitted, type ChildSpec } from "./child-machine.js";

export type ChildRef = ActorRefFrom<typeof childMachine>;

export interface SupervisorInput {
  children: ChildSpec[];
}

type SupervisorEvent =
  | { type: "RESTART"; name: string }
  | { type: "STOP" }
  | { type: "CHILD"; event: ChildEmitted }
  | { type: `xstate.done.actor.${string}`; actorId: string };

export interface SupervisorContext {
  children: Record<string, ChildRef>;
  /** Names of children not yet stopped (plain data, replaced through assign). */
  running: readonly string[];
}

export const supervisorMachine = setup({
  types: {
    context: {} as SupervisorContext,
    events: {} as SupervisorEvent,
    input: {} as SupervisorInput,
    emitted: {} as ChildEmitted,
  },
  actors: { child: childMachine },
  guards: {
    allStopped: ({ context }) => context.running.length === 0,
  },
}).createMachine({
  id: "supervisor",
  initial: "running",
  context: ({ input, spawn, self }) => {
    const children: Record<string, ChildRef> = {};
    for (const spec of input.children) {
      const ref = spawn("child", { id: spec.name, input: spec });
      // Children report by emitting; the supervisor turns that into its own events, in order.
      ref.on("*", (event) => self.send({ type: "CHILD", event: event as ChildEmitted }));
      children[spec.name] = ref;
    }
    return { children, running: Object.keys(children) };
  },
  on: {
    CHILD: { actions: emit(({ event }) => event.event) },
    // A child is gone once XState says it finished (after its last emitted event), not before.
    "xstate.done.actor.*": {
      actions: assign({
        running: ({ context, event }) => context.running.filter((name) => name !== (event as unknown as { actorId: string }).actorId),
      }),
    },
  },
  states: {
    running: {
      on: {
        RESTART: {
          actions: enqueueActions(({ context, event, enqueue }) => {
            const child = context.children[event.name];
            if (child) enqueue.sendTo(child, { type: "RESTART" });
          }),
        },
        STOP: "stopping",
      },
    },
    stopping: {
      entry: enqueueActions(({ context, enqueue }) => {
        for (const child of Object.values(context.children)) enqueue.sendTo(child, { type: "STOP" });
      }),
      always: { guard: "allStopped", target: "stopped" },
    },
    stopped: { type: "final" },
  },
});
