/**
 * `mcp-switchboard/fleet`: many processes share credentials, limits, breaker decisions and lists
 * through Redis. `redisFleet({ url } | { client }, prefix?)` gives the object a Switchboard takes as
 * `fleet`; ioredis (an optional peer dependency) is imported when the first fleet is made.
 *
 * @module mcp-switchboard/fleet
 */
import type { Redis } from "ioredis";
import type { Checkpointer } from "../agents/checkpointer.js";
import type { TokenStore } from "../auth/token-store.js";
import { ConfigError } from "../jsonrpc/errors.js";
import type { BoardFleet, FleetEvent, FleetGate, FleetLimits } from "../switchboard/fleet-seam.js";
import { FleetBus } from "./bus.js";
import { gatewaySessionShare, type GatewaySessionShare } from "./gateway-sessions.js";
import { RedisGate } from "./gate.js";
import { redisCheckpointer } from "./checkpointer.js";
import { FleetLink } from "./link.js";
import { FleetLists } from "./lists.js";
import { memberStatuses, publishStatus } from "./member-status.js";
import { redisTokenStore } from "./token-store.js";
import { checkRedisUrl, maskedUrl } from "./url.js";

export type { BoardFleet, FleetEvent, FleetGate, FleetGateState, FleetLimits, FleetListSync, KeptList, SharedListKind } from "../switchboard/fleet-seam.js";
export type { FleetMemberStatus } from "../switchboard/member-summary.js";
export type { TokenStore } from "../auth/token-store.js";
export type { Checkpointer } from "../agents/checkpointer.js";
export type { GatewaySessionListener, GatewaySessionShare } from "./gateway-sessions.js";

/** The key prefix when none is given: processes with the same Redis and prefix form one fleet. */
export const DEFAULT_FLEET_PREFIX = "mcpsb";

/** A fleet on Redis, as `redisFleet()` makes it. */
export interface RedisFleet extends BoardFleet {
  /** Every process with the same Redis and prefix is one fleet. */
  readonly prefix: string;
  /** This process's member id (host:pid:random). */
  readonly member: string;
  /** Redis answers now (false: each process enforces its share). */
  readonly healthy: boolean;
  /** Live members when last seen. */
  readonly members: number;
  /** The tool list a member last listed for `server` (undefined: none kept, or Redis away). */
  keptTools(server: string): Promise<unknown[] | undefined>;
  /** Resolves once Redis answered or was found unreachable, the first time. */
  ready(): Promise<void>;
  /** Durable-run checkpoints in this Redis under the prefix (see src/fleet/checkpointer.ts); no local fallback. */
  checkpointer(): Checkpointer;
  /** Where a gateway's replicas keep their 2025-era sessions (`serveBoard` uses it when the board has this fleet). */
  gatewaySessions(): GatewaySessionShare;
}

/** A fleet on Redis: `{ url }` (redis://, rediss://, unix:/path) or `{ client }` (an ioredis client, closed by its owner). */
export function redisFleet(source: { url: string } | { client: Redis }, prefix: string = DEFAULT_FLEET_PREFIX): RedisFleet {
  if (typeof prefix !== "string" || !/^[\w.-]+$/.test(prefix)) {
    throw new ConfigError(`expected letters, digits, "_", "." or "-", found ${JSON.stringify(prefix)}`, { field: "fleet.prefix" });
  }
  const link =
    "client" in source && source.client !== undefined
      ? new FleetLink({ client: source.client, shown: "(the given client)" }, prefix)
      : new FleetLink({ url: checkRedisUrl((source as { url: unknown }).url), shown: maskedUrl((source as { url: string }).url) }, prefix);
  let store: TokenStore | undefined;
  let checkpoints: Checkpointer | undefined;
  let lists: FleetLists | undefined;
  let bus: FleetBus | undefined;
  let gatewaySessions: GatewaySessionShare | undefined;
  const busOf = () => (bus ??= new FleetBus(link));
  const gates = new Map<string, RedisGate>();
  return {
    prefix,
    get member() {
      return link.member;
    },
    get healthy() {
      return link.healthy;
    },
    get members() {
      return link.members;
    },
    ready: () => link.settled,
    tokenStore: () => (store ??= redisTokenStore(link)),
    checkpointer: () => (checkpoints ??= redisCheckpointer(link)),
    gatewaySessions: () => (gatewaySessions ??= gatewaySessionShare(link, busOf())),
    gate(server: string, limits: FleetLimits, circuit: { failureThreshold: number; cooldownMs: number }): FleetGate | undefined {
      if (limits.maxConcurrency === undefined && limits.ratePerSecond === undefined && limits.breakerQuorum === undefined) return undefined;
      let gate = gates.get(server);
      if (gate === undefined) gates.set(server, (gate = new RedisGate(link, busOf(), server, limits, circuit)));
      return gate;
    },
    lists: (server: string, onRemoteChange: () => void) => (lists ??= new FleetLists(link, busOf())).watch(server, onRemoteChange),
    /** The tool list a member of the fleet last listed for `server` (undefined: none kept, or Redis away). */
    keptTools: (server: string) => (lists ??= new FleetLists(link, busOf())).tools(server),
    publishStatus: (summary: () => string, watched?: (on: boolean) => void) => publishStatus(link, summary, watched),
    memberStatuses: () => memberStatuses(link),
    onEvent(listener: (event: FleetEvent) => void) {
      link.on("event", listener);
      return () => void link.off("event", listener);
    },
    close: () => {
      bus?.close();
      return link.close();
    },
  };
}
