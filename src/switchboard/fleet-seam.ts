/**
 * What a Switchboard asks of a fleet (many processes sharing credentials, limits and breaker decisions),
 * declared here so the board never imports an implementation: src/fleet/ implements it on Redis, and
 * the package entry (src/index.ts) installs the loader that builds one from an `mcp.json` "fleet"
 * object, by dynamic import, so a board without a fleet loads none of it.
 */
import type { TokenStore } from "../auth/token-store.js";
import { ConfigError } from "../jsonrpc/errors.js";
import type { FleetMemberStatus } from "./member-summary.js";

/** A server entry's `fleet` object: limits shared by every process of the fleet. */
export interface FleetLimits {
  /** Calls in flight across every process. */
  maxConcurrency?: number | undefined;
  /** Calls started per second across every process. */
  ratePerSecond?: number | undefined;
  /** Calls that may start at once above the rate (default: ratePerSecond). */
  burst?: number | undefined;
  /** Processes that must see the server failing before its circuit opens fleet-wide (default 2). */
  breakerQuorum?: number | undefined;
}

/** What a fleet reports (the board's `fleet` event). */
export type FleetEvent =
  | { type: "degraded"; reason: string }
  | { type: "restored"; members: number }
  | { type: "paused"; server: string; retryAfterMs: number }
  | { type: "resumed"; server: string }
  | { type: "breaker"; server: string; state: "open" | "closed"; reason: string }
  /** A process died between a token response and storing it; the rotated token is lost: a person must authorize again. */
  | { type: "reauthorization-required"; server: string; reason: string };

/** What a gate knows now of its server across the fleet (a member's `status()` shows it). */
export interface FleetGateState {
  /** The fleet's breaker decision: "open" while it refuses calls, "half-open" while one member probes; undefined: closed. */
  circuit: "open" | "half-open" | undefined;
  /** A Retry-After pause stands. */
  paused: boolean;
  /** Calls of this process waiting for a permit, a rate-limit slot or the end of a pause. */
  waiting: number;
}

/** One server's share of the fleet: a permit per call, and what the server's answers teach the fleet. */
export interface FleetGate {
  /** The fleet's decisions on the server as this member knows them, and its calls waiting. */
  state(): FleetGateState;
  /**
   * Waits (never fails for a full limit) until the call may start across the fleet; resolves with the
   * function that gives the permit back. Rejects only when `signal` aborts, the call's `deadline` (ms
   * since the epoch) passes first, or the circuit is open fleet-wide (then with that error).
   */
  acquire(signal: AbortSignal | undefined, deadline?: number): Promise<() => void>;
  /** A call's outcome: a 429/503 with Retry-After pauses the server fleet-wide; failures vote for the breaker. */
  report(error: unknown): void;
  /**
   * A permit at once, when this process holds one that no call uses (no waiting, no promise): true,
   * and the call ends with `finished`. False: the call takes `acquire`.
   */
  tryAcquire(): boolean;
  /** A call that `tryAcquire` admitted ended, with its outcome as for `report` (undefined: success). */
  finished(error: unknown): void;
}

/** The lists a fleet keeps for its members. */
export type SharedListKind = "tools" | "resources" | "prompts";

/** What the fleet holds of one list: the items when a current copy is kept, else the version to keep a new one under. */
export interface KeptList {
  /** A member's listing, still current (no list_changed since, its TTL not over). */
  items?: unknown[] | undefined;
  /** The lists' version now (pass it to `keep`); undefined when the fleet cannot keep anything (Redis away). */
  version?: string | undefined;
}

/** One server's lists across the fleet: what this member tells the others, and what they listed. */
export interface FleetListSync {
  /** The server said a list changed (list_changed): every member lists again. */
  changed(): void;
  /** The fleet's current copy of the server's `kind` list, if any (shared-lists.ts). Never rejects. */
  kept(kind: SharedListKind): Promise<KeptList>;
  /**
   * This member listed `kind` at `version` (from `kept`): the others may use it for `ttlMs`; `items`
   * undefined withdraws the fleet's copy (the server marked the list private, or not to be reused).
   * Ignored when the version moved on meanwhile.
   */
  keep(kind: SharedListKind, version: string, items: readonly unknown[] | undefined, ttlMs: number): void;
}

/** The fleet as a board uses it (`redisFleet()` from "mcp-switchboard/fleet" is one). */
export interface BoardFleet {
  /** The credentials store OAuth entries without a store of their own use. */
  tokenStore(): TokenStore;
  /** The gate of one server; undefined when its entry sets no fleet limits. */
  gate(server: string, limits: FleetLimits, circuit: { failureThreshold: number; cooldownMs: number }): FleetGate | undefined;
  /** Shares a server's list changes; `onRemoteChange` runs when another member's server changed its lists. */
  lists(server: string, onRemoteChange: () => void): FleetListSync;
  /** Subscribes to the fleet's events; returns the unsubscribe function. */
  onEvent(listener: (event: FleetEvent) => void): () => void;
  /** Leaves the fleet: the heartbeat stops, connections close (a caller's own client stays open). */
  close(): Promise<void>;
  /**
   * Optional: sends `summary()` (JSON) with each heartbeat, for the fleet's observers; returns the stop.
   * `watched` hears, at a heartbeat, whether an observer of the fleet read the members lately: the
   * member counts its calls only then.
   */
  publishStatus?(summary: () => string, watched?: (on: boolean) => void): () => void;
  /** Optional: every member in the fleet's member list with its last summary, in one round trip. */
  memberStatuses?(): Promise<FleetMemberStatus[]>;
}

/** The top-level "fleet" object of mcp.json. */
export interface FleetConfig {
  /** The Redis URL (`${REDIS_URL}` substitution applies). */
  redis: string;
  /** Key prefix: processes with the same Redis and prefix form one fleet (default "mcpsb"). */
  prefix?: string | undefined;
}

type FleetLoader = (config: FleetConfig) => Promise<BoardFleet>;
let loader: FleetLoader | undefined;

/** Installed by the package entry: builds a fleet from the config (a dynamic import of src/fleet/). */
export function setFleetLoader(load: FleetLoader): void {
  loader = load;
}

export function loadFleet(config: FleetConfig): Promise<BoardFleet> {
  if (loader === undefined) {
    throw new ConfigError('the config has a "fleet" but no fleet loader is installed: import Switchboard from "mcp-switchboard"', { field: "fleet" });
  }
  return loader(config);
}
