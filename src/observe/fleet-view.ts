/**
 * The fleet on the page: every process in the fleet's member list, with the summary it sent with its
 * heartbeat (src/fleet/member-status.ts), read once per page tick while a page is open. A summary comes
 * from another process, so it is rebuilt field by field and bounded here like everything else the page
 * is sent; a member whose heartbeat lapsed is shown gone, with its last summary, until the list drops it.
 */
import type { BoardFleet } from "../switchboard/fleet-seam.js";
import type { FleetMemberStatus, ServerSummary } from "../switchboard/member-summary.js";

/** A read that takes longer than this is given up (the page keeps the last one and says how old it is). */
const READ_TIMEOUT_MS = 800;
const TEXT_LIMIT = 120;
const MAX_SERVERS = 100;

export interface FleetMemberView {
  id: string;
  /** The process this page is served by. */
  self: boolean;
  host: string | undefined;
  pid: number | undefined;
  uptimeMs: number | undefined;
  lastBeatAgoMs: number;
  /** false: its heartbeat lapsed (killed, hung or cut off from Redis). */
  alive: boolean;
  /** undefined: it sent no summary (a process with the fleet but not this package's board). */
  servers: ServerSummary[] | undefined;
}

export interface FleetView {
  /** When Redis was last read (ms since the epoch); undefined before the first read. */
  readAt: number | undefined;
  /** Why the last read failed, if it did: the members shown are then as last read, stale. */
  error: string | undefined;
  members: FleetMemberView[];
}

type StatusSource = Pick<BoardFleet, "memberStatuses"> & { member?: unknown };

export class FleetWatch {
  private view: FleetView = { readAt: undefined, error: undefined, members: [] };
  private reading: Promise<void> | undefined;
  private readonly self: string | undefined;

  constructor(private readonly fleet: StatusSource) {
    this.self = typeof fleet.member === "string" ? fleet.member : undefined;
  }

  current(): FleetView {
    return this.view;
  }

  /** Reads every member once; concurrent callers share the read. */
  refresh(): Promise<void> {
    this.reading ??= this.read().finally(() => (this.reading = undefined));
    return this.reading;
  }

  private async read(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the fleet's Redis within ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS).unref();
    });
    try {
      const statuses = await Promise.race([this.fleet.memberStatuses!(), late]);
      const readAt = Date.now();
      this.view = { readAt, error: undefined, members: statuses.map((status) => this.member(status, readAt)) };
    } catch (error) {
      this.view = { ...this.view, error: firstLine((error as Error).message) };
    } finally {
      clearTimeout(timer);
    }
  }

  private member(status: FleetMemberStatus, now: number): FleetMemberView {
    const summary = parse(status.summary);
    const startedAt = num(summary?.startedAt);
    return {
      id: text(status.member) ?? "",
      self: status.member === this.self,
      host: text(summary?.host),
      pid: num(summary?.pid),
      uptimeMs: startedAt === undefined ? undefined : Math.max(0, now - startedAt),
      lastBeatAgoMs: status.lastBeatAgoMs,
      alive: status.alive,
      servers: Array.isArray(summary?.servers) ? summary.servers.slice(0, MAX_SERVERS).map(server) : undefined,
    };
  }
}

function parse(json: string | undefined): Record<string, unknown> & { servers?: unknown } {
  if (json === undefined) return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function server(value: unknown): ServerSummary {
  const s = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  return {
    name: text(s.name) ?? "?",
    state: text(s.state) ?? "?",
    inFlight: num(s.inFlight) ?? 0,
    waiting: num(s.waiting) ?? 0,
    paused: s.paused === true,
    fleetLimit: num(s.fleetLimit),
    restarts: num(s.restarts) ?? 0,
    circuit: text(s.circuit) ?? "?",
    callsPerSecond: num(s.callsPerSecond) ?? 0,
    p50: num(s.p50) ?? null,
    p99: num(s.p99) ?? null,
  };
}

const num = (value: unknown): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined);
const text = (value: unknown): string | undefined => (typeof value === "string" ? value.slice(0, TEXT_LIMIT) : undefined);
const firstLine = (message: string): string => (message.split("\n", 1)[0] ?? "").slice(0, TEXT_LIMIT * 2);
