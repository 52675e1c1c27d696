/**
 * One process's link to the fleet's Redis: the client (ioredis, imported only here and only when a
 * fleet is made), whether Redis answers now, the member id and heartbeat, and how many members were
 * alive when last seen (what a process divides the limits by when Redis is gone).
 *
 * Nothing here throws at a caller when Redis is away: commands are refused at once while the client is
 * not ready (no offline queue, so nothing hangs), callers check `healthy` first, and every change of
 * state is one `degraded` / `restored` event naming the URL with its password masked.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Redis, RedisOptions } from "ioredis";
import { EventEmitter } from "eventemitter3";
import type { FleetEvent } from "../switchboard/fleet-seam.js";
import { SCRIPTS, type FleetCommands } from "./scripts.js";

export type FleetClient = Redis & FleetCommands;

/** How long a member's heartbeat (and so its permits and its vote as a live member) lasts. */
export const LEASE_MS = 3_000;
const BEAT_MS = 1_000;
/** A member's summary outlives it as long as the heartbeat script keeps a dead member listed. */
export const STATUS_KEEP_MS = 60_000;
/**
 * An observer that reads the members marks the fleet watched for this long (member-status.ts); members
 * hear it with their heartbeat and count their calls only while it lasts, so a fleet nobody watches pays
 * nothing per call for its summaries.
 */
export const WATCHED_MS = 10_000;
/** A Redis that accepted the connection but has not answered within this is reported degraded. */
const FIRST_ANSWER_MS = 2_000;

export interface LinkSource {
  client?: Redis | undefined;
  /** Already checked (url.ts). */
  url?: string | undefined;
  /** For messages: the URL with its password masked. */
  shown: string;
}

export class FleetLink extends EventEmitter<{ event: [FleetEvent] }> {
  readonly member = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  client: FleetClient | undefined;
  healthy = false;
  /** Live members when Redis last said (1 until it did). */
  members = 1;
  /** Resolves once Redis answered, or was reported unreachable, the first time. */
  readonly settled: Promise<void>;
  private settleFirst!: () => void;
  /** Redis answered, or was reported unreachable, at least once. */
  isSettled = false;
  private degraded = false;
  private beat: NodeJS.Timeout | undefined;
  private firstAnswer: NodeJS.Timeout | undefined;
  private closed = false;
  /** Permit hashes this member holds permits in (their TTL rides on the heartbeat). */
  readonly holding = new Set<string>();
  /** This member's summary for the fleet's observers, sent with each heartbeat (member-status.ts). */
  statusOf: (() => string) | undefined;
  /** Hears whether an observer of the fleet read the members within WATCHED_MS, as of each heartbeat. */
  watchedBy: ((on: boolean) => void) | undefined;
  private watched = false;

  constructor(
    private readonly source: LinkSource,
    readonly prefix: string,
  ) {
    super();
    this.settled = new Promise((resolve) => (this.settleFirst = resolve));
    this.connect().catch((error: unknown) => this.down(`cannot load ioredis (npm install ioredis): ${(error as Error).message}`));
  }

  /** The Redis URL with its password masked, for messages. */
  get shown(): string {
    return this.source.shown;
  }

  key(...parts: string[]): string {
    return [this.prefix, ...parts].join(":");
  }

  private async connect(): Promise<void> {
    let client = this.source.client as FleetClient | undefined;
    if (client === undefined) {
      const { Redis: RedisClass } = await import("ioredis");
      const options: RedisOptions = {
        // Refused at once while disconnected, so a call never waits on a dead Redis.
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        connectTimeout: FIRST_ANSWER_MS,
        retryStrategy: (times) => Math.min(100 * times, 1_000),
        lazyConnect: true,
      };
      client = new RedisClass(this.source.url!, options) as FleetClient;
    }
    if (this.closed) return;
    for (const [name, definition] of Object.entries(SCRIPTS)) if (!(name in client)) client.defineCommand(name, definition);
    this.client = client;
    client.on("ready", () => void this.up());
    client.on("error", (error: Error) => this.down(error.message));
    client.on("close", () => this.down("connection closed"));
    this.firstAnswer = setTimeout(() => this.down(`no answer within ${FIRST_ANSWER_MS} ms`), FIRST_ANSWER_MS);
    this.firstAnswer.unref();
    if (client.status === "ready") void this.up();
    else if (client.status === "wait") client.connect().catch((error: Error) => this.down(error.message));
  }

  private async up(): Promise<void> {
    clearTimeout(this.firstAnswer);
    if (this.closed) return;
    this.healthy = true;
    await this.heartbeat();
    this.beat ??= setInterval(() => void this.heartbeat(), BEAT_MS).unref();
    if (this.degraded) {
      this.degraded = false;
      this.emit("event", { type: "restored", members: this.members });
    }
    this.markSettled();
  }

  /** Redis is gone (or never came): fall back to the local share, and say so once. */
  down(why: string): void {
    clearTimeout(this.firstAnswer);
    this.healthy = false;
    this.markSettled();
    if (this.degraded || this.closed) return;
    this.degraded = true;
    this.emit("event", { type: "degraded", reason: `Redis ${this.source.shown}: ${maskSecrets(why)}; each process enforces its share of the limits` });
  }

  /** A command failed: if Redis is gone, that is the `degraded` moment. */
  failed(error: unknown): void {
    if (this.client?.status !== "ready") this.down((error as Error).message);
  }

  private async heartbeat(): Promise<void> {
    const client = this.client;
    if (client === undefined || client.status !== "ready") return;
    try {
      const keys = [this.key("members"), ...this.holding];
      const status = this.statusOf?.();
      // The summary goes in the heartbeat's round trip: one pipeline, one write, one wait.
      if (status === undefined) {
        this.members = Math.max(1, await client.sbBeat(keys.length, ...keys, this.member, LEASE_MS));
        return;
      }
      const [members, watched] = await beatWithStatus(client, keys, this.member, this.key("status", this.member), status, this.key("watched"));
      this.members = Math.max(1, members);
      if (watched !== this.watched) {
        this.watched = watched;
        this.watchedBy?.(watched);
      }
    } catch (error) {
      this.failed(error);
    }
  }

  private markSettled(): void {
    this.isSettled = true;
    this.settleFirst();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.firstAnswer);
    clearInterval(this.beat);
    this.markSettled();
    const client = this.client;
    if (client === undefined || this.source.client !== undefined) return; // a caller's client is the caller's to close
    if (client.status === "ready") await client.zrem(this.key("members"), this.member).catch(() => {});
    client.disconnect();
  }
}

/**
 * The heartbeat and this member's summary (kept as long as the member list keeps a dead member), and
 * whether an observer watches the fleet: the live members, and that.
 */
async function beatWithStatus(
  client: FleetClient,
  keys: string[],
  member: string,
  statusKey: string,
  status: string,
  watchedKey: string,
): Promise<[number, boolean]> {
  // A pipeline queues commands and returns itself: ioredis's types know the defined scripts on neither.
  const pipeline = client.pipeline() as unknown as {
    sbBeat(...args: Array<string | number>): typeof pipeline;
    set(...args: Array<string | number>): typeof pipeline;
    exists(key: string): typeof pipeline;
    exec(): Promise<Array<[Error | null, unknown]> | null>;
  };
  const [beat, , watched] =
    (await pipeline
      .sbBeat(keys.length, ...keys, member, LEASE_MS)
      .set(statusKey, status, "PX", STATUS_KEEP_MS)
      .exists(watchedKey)
      .exec()) ?? [];
  if (beat === undefined || beat[0] !== null) throw beat?.[0] ?? new Error("no heartbeat reply");
  return [beat[1] as number, watched?.[1] === 1];
}

/** A Redis error can quote the URL it was given: no password leaves in a message. */
export function maskSecrets(text: string): string {
  return text.replace(/(\w+:\/\/[^:@/\s]*:)[^@\s]+@/g, "$1***@");
}
