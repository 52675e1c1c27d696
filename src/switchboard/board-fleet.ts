/**
 * How a Switchboard joins a fleet (fleet-seam.ts), kept out of switchboard.ts: OAuth entries that
 * name no store of their own use the fleet's token store, servers with a `fleet` object get a gate,
 * the fleet's events become the board's `fleet` events, and a fleet the board built from its config
 * is closed with the board.
 */
import { OAuthProvider, oauth } from "../auth/oauth.js";
import { oauthFromConfig } from "../auth/config.js";
import type { SwitchboardConfig } from "./config-types.js";
import { loadFleet, type BoardFleet, type FleetEvent } from "./fleet-seam.js";
import type { RunnableEntry, ServerRuntime } from "./server-runtime.js";

/** Fleets a board built from its own config, so closed by it. */
const owned = new WeakSet<BoardFleet>();

/** The fleet a board built from a config uses: the caller's, else one made from the config's `fleet`. */
export async function fleetFor(config: SwitchboardConfig, given: BoardFleet | undefined): Promise<BoardFleet | undefined> {
  if (given !== undefined || config.fleet === undefined) return given;
  const fleet = await loadFleet(config.fleet);
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

/** Gates for the servers with a `fleet` object, events relayed; resolves the returned detach on stop. */
export function attachFleet(fleet: BoardFleet, runtimes: Iterable<ServerRuntime>, emit: (event: FleetEvent) => void): () => Promise<void> {
  for (const runtime of runtimes) {
    runtime.fleetLists = fleet.lists(runtime.name, () => runtime.relist());
    const limits = runtime.entry.fleet;
    if (limits !== undefined) runtime.fleetGate = fleet.gate(runtime.name, limits, runtime.entry.circuit);
  }
  const off = fleet.onEvent(emit);
  return async () => {
    off();
    if (owned.has(fleet)) await fleet.close();
  };
}
