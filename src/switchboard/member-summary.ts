/**
 * What one process of a fleet tells the others about its board, for the observer's fleet view. Declared
 * here, below both sides: the fleet (src/fleet/member-status.ts) sends a member's summary with its
 * heartbeat and reads every member's, and the observer (src/observe/fleet-view.ts) builds and shows
 * them. The board only hands itself and its fleet to the hook the observer layer registers.
 */
import type { BoardFleet } from "./fleet-seam.js";
import type { Switchboard } from "./switchboard.js";

/** One server of a member, as its observer counts it (rates are null when nothing was counted). */
export interface ServerSummary {
  name: string;
  state: string;
  /** Calls sent to the server and not answered yet (each holds one of the fleet's permits). */
  inFlight: number;
  /** Calls waiting for the fleet: a permit, a rate-limit slot or the end of a pause. */
  waiting: number;
  /** The fleet paused the server (Retry-After). */
  paused: boolean;
  /** The fleet-wide `maxConcurrency` of the server (undefined: none). */
  fleetLimit: number | undefined;
  restarts: number;
  circuit: string;
  /** Calls finished in the last whole second. */
  callsPerSecond: number;
  /** Latency of those calls, ms (null: no call that second). */
  p50: number | null;
  p99: number | null;
}

/** A member's summary: names, states and numbers only (no env, headers, URLs, commands or tokens). */
export interface MemberSummary {
  host: string;
  pid: number;
  /** When the process started (ms since the epoch). */
  startedAt: number;
  servers: ServerSummary[];
}

/** One member in the fleet's member list, as Redis last saw it. */
export interface FleetMemberStatus {
  /** The member id (host:pid:random). */
  member: string;
  /** Its heartbeat's lease has not lapsed. */
  alive: boolean;
  /** Since its last heartbeat, by Redis's clock. */
  lastBeatAgoMs: number;
  /** Its last summary as sent (JSON), if it sent one. */
  summary: string | undefined;
}

type MemberHook = (board: Switchboard, fleet: BoardFleet) => (() => void) | undefined;
let hook: MemberHook | undefined;

/** Called by src/observe/index.ts as it loads: every board that joins a fleet is handed to it. */
export function provideFleetMember(joined: MemberHook): void {
  hook = joined;
}

/** A board joined `fleet`: returns what to call when it leaves (undefined: nothing registered). */
export function memberJoined(board: Switchboard, fleet: BoardFleet): (() => void) | undefined {
  return hook?.(board, fleet);
}
