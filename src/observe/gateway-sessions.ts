/**
 * The gateway sessions of a board, for the observer: a gateway serving the board registers a source
 * here (the gateway sits above this layer, so it comes to us), and each snapshot reads every source of
 * its board. Nothing is kept here but the sources: a snapshot reads the sessions as they are then.
 */
import { TEXT_LIMIT } from "./view.js";

/** One downstream client's session, as the page shows it. */
export interface GatewaySessionView {
  /** The first characters of its session id: enough to tell sessions apart, too few to use one. */
  id: string;
  /** `name version` from its `initialize`, when it gave them. */
  client: string | undefined;
  /** Who it authenticated as; undefined without auth in front. */
  principal: string | undefined;
  /** Tool calls it made. */
  calls: number;
  /** When it opened and when it last sent a request (ms since the epoch). */
  startedAt: number;
  lastActiveAt: number;
}

type Source = () => Iterable<GatewaySessionView>;

const sources = new WeakMap<object, Set<Source>>();

/** Makes `list` part of `board`'s snapshots; the function returned takes it out (the gateway closed). */
export function registerGatewaySessions(board: object, list: Source): () => void {
  let set = sources.get(board);
  if (set === undefined) sources.set(board, (set = new Set()));
  set.add(list);
  return () => void set.delete(list);
}

/** How many sessions a snapshot carries: a gateway may hold thousands, the page shows the most recent. */
const SHOWN = 50;

export interface GatewaySessionsView {
  /** Sessions held by every gateway serving the board. */
  total: number;
  /** The most recently active of them (at most 50), most recent first. */
  sessions: GatewaySessionView[];
}

/** The sessions of every gateway serving `board`; undefined when none serves it. */
export function gatewaySessionsOf(board: object): GatewaySessionsView | undefined {
  const set = sources.get(board);
  if (set === undefined || set.size === 0) return undefined;
  const all: GatewaySessionView[] = [];
  for (const list of set) for (const session of list()) all.push(session);
  return { total: all.length, sessions: all.sort((a, b) => b.lastActiveAt - a.lastActiveAt).slice(0, SHOWN) };
}

/** A client's `name version`, bounded (it is the client's own text). */
export function clientLabel(info: { name?: unknown; version?: unknown } | undefined): string | undefined {
  if (typeof info?.name !== "string") return undefined;
  return (typeof info.version === "string" ? `${info.name} ${info.version}` : info.name).slice(0, TEXT_LIMIT);
}
