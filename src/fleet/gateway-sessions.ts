/**
 * What a gateway's replicas share through the fleet's Redis, so that N gateways behind a round-robin
 * load balancer serve each other's 2025-era sessions (src/gateway/replicas.ts uses it): each session's
 * state under its own key with a TTL, a channel on which a replica says a session changed or ended (the
 * others update or drop their cached copies), and the messages sent outside responses (list changes,
 * log messages), numbered fleet-wide by one counter so a client's `Last-Event-ID` means the same on
 * every replica, and channels for 2026 clients' input rounds (src/gateway/replica-rounds.ts): one
 * that every replica hears, and one of each replica's own. This file only moves strings; what they
 * say is the gateway's.
 */
import type { FleetBus } from "./bus.js";
import type { FleetLink } from "./link.js";

/** What a replica hears from the others. */
export interface GatewaySessionListener {
  /** Another replica saved session `id`'s state or told it something (`note`), or ended it (undefined). */
  session(id: string, note: string | undefined): void;
  /** A batch of messages for every replica's streams, numbered from `first` (`messages` is a JSON array). */
  events(first: number, messages: string): void;
  /** Redis is back, or the subscription was (re)made: what was published meanwhile is lost, so cached copies are checked again. */
  resync(): void;
}

/** The gateway sessions' share of the fleet, as `fleet.gatewaySessions()` gives it. */
export interface GatewaySessionShare {
  /** Keeps session `id`'s state for `ttlMs` and tells the other replicas; false when Redis is away. */
  save(id: string, state: string, ttlMs: number): Promise<boolean>;
  /** The states of sessions `ids` (undefined: none kept); undefined when Redis is away. */
  load(ids: readonly string[]): Promise<Array<string | undefined> | undefined>;
  /** Keeps sessions `ids` another `ttlMs`: one pipeline, not awaited. */
  touch(ids: readonly string[], ttlMs: number): void;
  /** Tells the other replicas something about session `id` (a cancellation), keeping nothing. */
  tell(id: string, note: string): void;
  /** Ends session `id` for every replica; resolves once Redis has it (never rejects). */
  remove(id: string): Promise<void>;
  /** Publishes `count` messages (a JSON array) to every replica, itself included; the first one's number, or undefined when Redis is away. */
  broadcast(messages: string, count: number): Promise<number | undefined>;
  /** Hears the other replicas from now on (one listener per process's fleet). */
  listen(listener: GatewaySessionListener): void;
  /**
   * Publishes a note about a 2026 client's input rounds to the replica that listens as `to`, or without
   * one to every replica, itself included (dropped while Redis is away).
   */
  relay(note: string, to?: string): void;
  /** Hears, from now on, notes about input rounds sent to every replica and those sent to `own`. */
  listenRounds(heard: (note: string) => void, own: string): void;
}

/** KEYS: counter, channel. ARGV: messages (a JSON array), their count. Numbers and publishes them in one step, so numbers follow publish order. */
const BROADCAST = `local last = redis.call('INCRBY', KEYS[1], tonumber(ARGV[2]))
local first = last - tonumber(ARGV[2]) + 1
redis.call('PUBLISH', KEYS[2], first .. ' ' .. ARGV[1])
return first`;

export function gatewaySessionShare(link: FleetLink, bus: FleetBus): GatewaySessionShare {
  const sessionKey = (id: string) => link.key("gateway", "session", id);
  const sessionsChannel = link.key("gateway", "sessions");
  const eventsChannel = link.key("gateway", "events");
  const counter = link.key("gateway", "events-seq");
  const roundsChannel = link.key("gateway", "rounds");
  const ready = () => (link.healthy ? link.client : undefined);
  const announce = (id: string, state: string) =>
    ready()
      ?.publish(sessionsChannel, `${link.member} ${id} ${state}`)
      .catch((error: unknown) => link.failed(error));
  return {
    async save(id, state, ttlMs) {
      await link.settled;
      const client = ready();
      if (client === undefined) return false;
      try {
        await client.set(sessionKey(id), state, "PX", ttlMs);
      } catch (error) {
        link.failed(error);
        return false;
      }
      void announce(id, state);
      return true;
    },
    async load(ids) {
      await link.settled;
      const client = ready();
      if (client === undefined || ids.length === 0) return undefined;
      try {
        return (await client.mget(...ids.map(sessionKey))).map((text) => text ?? undefined);
      } catch (error) {
        link.failed(error);
        return undefined;
      }
    },
    touch(ids, ttlMs) {
      const client = ready();
      if (client === undefined || ids.length === 0) return;
      const pipeline = client.pipeline();
      for (const id of ids) pipeline.pexpire(sessionKey(id), ttlMs);
      pipeline.exec().catch((error: unknown) => link.failed(error));
    },
    tell: (id, note) => void announce(id, note),
    async remove(id) {
      await Promise.all([
        ready()
          ?.del(sessionKey(id))
          .catch((error: unknown) => link.failed(error)),
        announce(id, ""),
      ]);
    },
    async broadcast(messages, count) {
      const client = ready();
      if (client === undefined) return undefined;
      try {
        return Number(await client.eval(BROADCAST, 2, counter, eventsChannel, messages, count));
      } catch (error) {
        link.failed(error);
        return undefined;
      }
    },
    relay(note, to) {
      ready()
        ?.publish(to === undefined ? roundsChannel : link.key("gateway", "rounds", to), note)
        .catch((error: unknown) => link.failed(error));
    },
    listenRounds(heard, own) {
      bus.listen(roundsChannel, heard);
      bus.listen(link.key("gateway", "rounds", own), heard);
    },
    listen(listener) {
      bus.listen(
        sessionsChannel,
        (text) => {
          const [member, id] = text.split(" ", 2) as [string, string];
          if (member === link.member || id === undefined) return;
          const state = text.slice(member.length + id.length + 2);
          listener.session(id, state === "" ? undefined : state);
        },
        () => listener.resync(),
      );
      link.on("event", (event) => {
        if (event.type === "restored") listener.resync();
      });
      bus.listen(eventsChannel, (text) => {
        const space = text.indexOf(" ");
        listener.events(Number(text.slice(0, space)), text.slice(space + 1));
      });
    },
  };
}
