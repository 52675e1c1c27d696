/**
 * How a Switchboard joins a fleet (fleet-seam.ts), kept out of switchboard.ts: OAuth entries that
 * name no store of their own use the fleet's token store, servers share list changes and those with a
 * `fleet` object get a gate, the fleet's events become the board's `fleet` events, and a fleet the
 * board built from its config is closed once the board's servers have stopped.
 */
import { OAuthProvider, oauth } from "../auth/oauth.js";
import { oauthFromConfig } from "../auth/config.js";
import type { SwitchboardConfig } from "./config-types.js";
import type { FromConfigOptions } from "./board-options.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { loadFleet, type BoardFleet, type FleetEvent } from "./fleet-seam.js";
import type { RunnableEntry, ServerRuntime } from "./server-runtime.js";
import { memberJoined } from "./member-summary.js";
import type { Switchboard } from "./switchboard.js";

/** Fleets a board built from its own config, so closed by it. */
const owned = new WeakSet<BoardFleet>();

/**
 * The fleet a board built from a config uses: the caller's, else one made from the config's `fleet`.
 * A bad `fleet` section (its Redis URL, its prefix) is refused naming the config file.
 */
export async function fleetFor(config: SwitchboardConfig, given: BoardFleet | undefined): Promise<BoardFleet | undefined> {
  if (given !== undefined || config.fleet === undefined) return given;
  let fleet: BoardFleet;
  try {
    fleet = await loadFleet(config.fleet);
  } catch (error) {
    if (!(error instanceof ConfigError) || error.file !== undefined || config.file === undefined) throw error;
    const field = error.field !== undefined ? { field: error.field } : {};
    throw new ConfigError(error.message.replace(/^field "[^"]*": /, ""), { file: config.file, ...field, cause: error });
  }
  owned.add(fleet);
  return fleet;
}

/** The entry with the fleet's token store in place of the process's, where it named none. */
export function withFleetStore(entry: RunnableEntry, fleet: BoardFleet | undefined): RunnableEntry {
  if (fleet === undefined || entry.type === "stdio") return entry;
  if (entry.auth instanceof OAuthProvider && entry.auth.options.store === undefined) {
    return { ...entry, auth: oauth({ ...entry.auth.options, store: fleet.tokenStore() }) };
  }
  if (entry.auth === undefined && entry.oauth !== undefined && entry.oauth.tokenFile === undefined) {
    return { ...entry, auth: oauthFromConfig(entry.oauth, { store: fleet.tokenStore() }) };
  }
  return entry;
}

/** The config and the board's options, with the fleet the config asks for when the options give none. */
export async function withConfigFleet(loading: Promise<SwitchboardConfig>, options: FromConfigOptions): Promise<[SwitchboardConfig, FromConfigOptions]> {
  const config = await loading;
  return [config, { ...options, fleet: await fleetFor(config, options.fleet) }];
}

/**
 * A fleet event is the board's `fleet` event; the fleet's breaker decision on one of the board's servers
 * is also this member's own `circuit` event, as its `status()` shows it (server-runtime.ts).
 */
function fleetEvent(board: Switchboard, event: FleetEvent): void {
  board.emit("fleet", event);
  if (event.type !== "breaker" || !board.serverNames.includes(event.server)) return;
  board.emit("circuit", { server: event.server, from: event.state === "open" ? "closed" : "open", to: event.state, reason: `fleet: ${event.reason}` });
}

/** Per board: its fleet events' unsubscribe, and how many of its servers have not stopped yet. */
const joined = new WeakMap<object, { off: () => void; running: number }>();

/**
 * Joins one server of a board to the fleet: its list changes are shared, its `fleet` limits get a
 * gate, the fleet's events become the board's `fleet` events; when the board's last server has
 * stopped the board leaves (a fleet it built from its config is closed).
 */
export function joinFleet(runtime: ServerRuntime, fleet: BoardFleet | undefined, board: Switchboard): ServerRuntime {
  if (fleet === undefined) return runtime;
  let membership = joined.get(board);
  if (membership === undefined) {
    const offEvents = fleet.onEvent((event) => fleetEvent(board, event));
    // The observer layer, when loaded, counts this board's calls and sends its summary with the heartbeat.
    const leave = memberJoined(board, fleet);
    joined.set(board, (membership = { off: () => (offEvents(), leave?.()), running: 0 }));
  }
  runtime.fleetLists = fleet.lists(runtime.name, () => runtime.relist());
  const limits = runtime.entry.fleet;
  if (limits !== undefined) runtime.fleetGate = fleet.gate(runtime.name, limits, runtime.entry.circuit);
  if (runtime.state === "disabled") return runtime;
  const counted = membership;
  counted.running++;
  runtime.onStopped = () => {
    if (--counted.running > 0) return;
    counted.off();
    if (owned.has(fleet)) void fleet.close();
  };
  return runtime;
}
