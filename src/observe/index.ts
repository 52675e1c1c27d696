/**
 * The live observer page of a Switchboard: `observe(board, options)`, also reachable as
 * `board.observe(options)` through the factory this module registers as it loads (the package entry
 * imports it; see src/switchboard/observation.ts for why the board cannot import it).
 */
import type { AgentEvents } from "../agents/events.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { provideObserver, type BoardObserver, type ObserveOptions } from "../switchboard/observation.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import type { BoardFleet } from "../switchboard/fleet-seam.js";
import { provideFleetMember } from "../switchboard/member-summary.js";
import { FleetWatch, type FleetView } from "./fleet-view.js";
import { BoardModel } from "./observer.js";
import { checkPort, DEFAULT_HOST, isLoopback, ObserverServer } from "./server.js";
import { Redactor, type Snapshot } from "./view.js";

export type { Snapshot, ServerView, CallView, LifecycleView, Session } from "./view.js";
export type { Series } from "./stats.js";
export type { RunView } from "./agent-runs.js";
export type { FleetView, FleetMemberView } from "./fleet-view.js";
export type { GatewaySessionsView, GatewaySessionView } from "./gateway-sessions.js";
export { secretsOf } from "./view.js";

// `board.observe()` resolves to an Observer: the board's layer cannot name this layer's types, so they
// are added to its BoardObserver here, where they are declared.
declare module "../switchboard/observation.js" {
  interface BoardObserver {
    /** What an open page is sent now (secrets named in `redact` are already replaced in the page's copy). */
    snapshot(): Snapshot;
    /** The fleet's members as Redis holds them now (read once; undefined: the board has no fleet). */
    fleet(): Promise<FleetView | undefined>;
    /** Pass as runAgent's `events` to show that run on the page. */
    agentEvents(label?: string): AgentEvents;
  }
}

/** A running observer: its address, the snapshot its page is sent, and events for agent runs to show. */
export class Observer implements BoardObserver {
  readonly url: string;
  readonly port: number;
  private closed: Promise<void> | undefined;

  /** @internal Made by `observe()`. */
  constructor(
    private readonly board: Switchboard,
    private readonly model: BoardModel,
    private readonly server: ObserverServer,
    host: string,
  ) {
    this.port = server.port;
    this.url = `http://${host.includes(":") ? `[${host}]` : host}:${this.port}/`;
  }

  /** Pass as runAgent's `events` to show that run (its conversation, turn by turn) on the page. */
  agentEvents(label?: string): AgentEvents {
    return this.model.agentEvents(label);
  }

  /** What an open page is sent now (secrets named in `redact` are already replaced in the page's copy). */
  snapshot(): Snapshot {
    return this.model.snapshot();
  }

  /** The fleet's members as Redis holds them now (read once; undefined: the board has no fleet). */
  async fleet(): Promise<FleetView | undefined> {
    const watch = this.model.fleet;
    if (watch === undefined) return undefined;
    await watch.refresh();
    return watch.current();
  }

  /** How many pages are open. */
  get pages(): number {
    return this.server.pages;
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      observed.delete(this.board);
      this.model.fleet = undefined;
      if (members.get(this.board)?.model === this.model) {
        // A fleet member keeps counting for its summary while the fleet is watched (its heartbeat says
        // when that ends); what the page asked for ends here.
        this.model.attach(false, () => {});
        if (members.get(this.board)?.watched === false && this.board.callTap === this.model) this.board.callTap = undefined;
      } else {
        if (this.board.callTap === this.model) this.board.callTap = undefined;
        this.model.close();
      }
      await this.server.close();
    })();
    return this.closed;
  }
}

/** Serves a live page of `board` on 127.0.0.1 (port 7331 unless told; 0 picks a free one). */
export async function observe(board: Switchboard, options: ObserveOptions = {}): Promise<Observer> {
  const port = checkPort(options.port);
  const host = options.host ?? DEFAULT_HOST;
  if (typeof host !== "string" || host === "") throw new ConfigError(`expected an address to bind, found ${String(host)}`, { field: "host" });
  const member = members.get(board);
  if (observed.has(board) || (board.callTap !== undefined && board.callTap !== member?.model)) {
    throw new ConfigError("this Switchboard is already observed: close that observer first");
  }
  const redactor = new Redactor(options.redact ?? []);
  const watch = member?.fleet.memberStatuses !== undefined ? new FleetWatch(member.fleet) : undefined;
  let model: BoardModel | undefined;
  const server = new ObserverServer(() => redactor.apply(JSON.stringify(model!.snapshot())), watch && (() => watch.refresh()));
  const capture = options.captureToolContent === true;
  if (member?.model !== undefined) member.model.attach(capture, () => server.changed());
  model = member?.model ?? new BoardModel(board, capture, () => server.changed());
  model.fleet = watch;
  if (!isLoopback(host)) {
    process.emitWarning(`The observer listens on ${host}: anyone who can reach it sees the board (no authentication). Use 127.0.0.1 unless you mean it.`, {
      code: "MCP_SWITCHBOARD_OBSERVER_HOST",
    });
  }
  try {
    await server.listen(port, host);
  } catch (error) {
    model.fleet = undefined;
    if (model === member?.model) model.attach(false, () => {});
    else model.close();
    throw error;
  }
  board.callTap = model;
  observed.add(board);
  return new Observer(board, model, server, host);
}

/** Boards with an observer open now: one at a time. */
const observed = new WeakSet<Switchboard>();
/** Boards in a fleet: their fleet and the model that counts their calls for the summary they send. */
const members = new WeakMap<Switchboard, { fleet: BoardFleet; model: BoardModel | undefined; watched?: boolean }>();

provideObserver(observe);

// Every board that joins a fleet sends its summary with the fleet's heartbeat, so an observer on any
// member shows every process of the fleet. It counts its calls for it (the tap of an observer with no
// page) only while an observer of the fleet reads the members: a fleet nobody watches pays nothing per
// call (bench/fleet.ts), and a page's rates start within a heartbeat of its first read.
provideFleetMember((board, fleet) => {
  if (fleet.publishStatus === undefined) {
    members.set(board, { fleet, model: undefined });
    return undefined;
  }
  const model = new BoardModel(board, false, () => {});
  const member = { fleet, model, watched: false };
  members.set(board, member);
  return fleet.publishStatus(
    () => JSON.stringify(model.summary()),
    (watched) => {
      member.watched = watched;
      // A page of this process keeps the tap while it is open (Observer.close decides after it).
      if (observed.has(board)) return;
      if (watched) board.callTap ??= model;
      else if (board.callTap === model) board.callTap = undefined;
    },
  );
});
