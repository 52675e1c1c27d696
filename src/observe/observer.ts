/**
 * The observer's model of a board: it taps the board's tool calls (per-server stats and the recent
 * calls), listens to the lifecycle events the board already emits, and builds the snapshot a page is
 * sent. With no page open it keeps counting and nothing else: no timer, no serialisation.
 */
import type { AgentEvents } from "../agents/events.js";
import type { CallTap, WatchedCall } from "../switchboard/observation.js";
import type { EventEmitter } from "eventemitter3";
import type { SwitchboardEvents } from "../switchboard/events.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { AgentRuns } from "./agent-runs.js";
import { gatewaySessionsOf } from "./gateway-sessions.js";
import type { FleetWatch } from "./fleet-view.js";
import { burstNow } from "../util/burst-clock.js";
import { hostname } from "node:os";
import type { MemberSummary } from "../switchboard/member-summary.js";
import { CallStats, lastSecond } from "./stats.js";
import { McpError } from "../jsonrpc/errors.js";
import {
  argsText,
  codeText,
  firstLine,
  runMessages,
  sessionOf,
  type CallView,
  type LifecycleView,
  type ServerView,
  type Session,
  type Snapshot,
} from "./view.js";

const KEPT_CALLS = 50;
const HOST = hostname();
const TIME_ORIGIN = performance.timeOrigin;
const KEPT_LIFECYCLE = 50;
/** Pendings kept for reuse: enough for the concurrency of a busy board; beyond it a call makes one. */
const KEPT_IDLE = 1024;

/** One finished call, kept by reference until a snapshot formats it. */
interface CallRecord {
  at: number;
  name: string;
  server: string | undefined;
  ms: number;
  outcome: CallView["outcome"];
  error: unknown;
  args: Record<string, unknown> | undefined;
}

/**
 * One call in flight, reused once its call settles: its reactions are made with it, not per call. On the
 * direct path it is the pair of reactions the runtime's call is given (`watch`): each runs the runtime's
 * own handler, then records what it returned or threw, so the recorded error is the one the caller gets.
 */
class Pending implements WatchedCall<unknown> {
  name = "";
  started = 0;
  args: Record<string, unknown> | undefined;
  /** The runtime's handlers this call's reactions wrap (the direct path); unset for a side reaction. */
  nextOk: ((result: unknown) => unknown) | undefined;
  nextFailed: ((error: unknown) => unknown) | undefined;
  constructor(private readonly model: BoardModel) {}
  readonly ok = (result: unknown): unknown => this.through(this.nextOk!, result);
  readonly failed = (error: unknown): unknown => this.through(this.nextFailed!, error);
  private through(next: (settled: unknown) => unknown, settled: unknown): unknown {
    let value: unknown;
    try {
      value = next(settled);
    } catch (thrown) {
      this.model.finished(this, "failed", thrown);
      throw thrown;
    }
    this.model.finished(this, outcomeOf(value), undefined);
    return value;
  }
  /** A side reaction's (the routed path's `called`): the caller awaits the board's promise, not these. */
  readonly settled = (result: unknown): void => {
    this.model.finished(this, outcomeOf(result), undefined);
  };
  readonly rejected = (error: unknown): void => {
    this.model.finished(this, "failed", error);
  };
}

/** A result with `isError: true` is the tool's own error, counted apart from a call that failed. */
const outcomeOf = (result: unknown): CallView["outcome"] => ((result as { isError?: unknown } | undefined)?.isError === true ? "error" : "ok");

export class BoardModel implements CallTap {
  private readonly stats = new Map<string, CallStats>();
  private readonly serverOfName = new Map<string, string | undefined>();
  private readonly calls: CallRecord[] = [];
  private nextCall = 0;
  /** Pendings whose calls settled, ready for the next calls. */
  private readonly idle: Pending[] = [];
  private lastName: string | undefined;
  private lastServer: string | undefined;
  private readonly lifecycle: LifecycleView[] = [];
  private readonly lastExit = new Map<string, { at: number; reason: string }>();
  private readonly lastSession = new Map<string, Session>();
  /** Per server: calls this process refused without sending (kept out of the call stats). */
  private readonly refused = new Map<string, number>();
  private readonly runs: AgentRuns;
  private readonly unlisten: Array<() => void> = [];
  /** The board's fleet, read while a page is open (index.ts). */
  fleet: FleetWatch | undefined;

  constructor(
    private readonly board: Switchboard,
    private capture: boolean,
    /** Something a page should see at once (a server went down, a run moved on). */
    private changed: () => void,
  ) {
    this.runs = new AgentRuns(() => this.changed());
    for (const name of board.serverNames) this.stats.set(name, new CallStats());
    this.listen("up", (e) => this.note(e.server, "up", e.restarts > 0 ? `after ${e.restarts} restart(s)` : ""));
    this.listen("exit", (e) => {
      const reason = firstLine(e.error.message) ?? "";
      this.lastExit.set(e.server, { at: Date.now(), reason });
      this.note(e.server, "exit", reason);
    });
    this.listen("restart", (e) => this.note(e.server, "restart", `attempt ${e.attempt} in ${Math.round(e.delayMs)} ms`));
    this.listen("down", (e) => this.note(e.server, "down", e.reason));
    this.listen("circuit", (e) => this.note(e.server, "circuit", `${e.from} → ${e.to}: ${firstLine(e.reason) ?? ""}`));
    this.listen("fallback", (e) => this.note(e.from, "fallback", `${e.name} → ${e.to}: ${firstLine(e.reason) ?? ""}`));
    this.listen("fleet", (e) => {
      const detail =
        e.type === "paused"
          ? `Retry-After ${Math.round(e.retryAfterMs)} ms`
          : e.type === "breaker"
            ? `${e.state}: ${e.reason}`
            : e.type === "restored"
              ? `${e.members} member(s)`
              : e.type === "resumed"
                ? ""
                : e.reason;
      this.note("server" in e ? e.server : "fleet", `fleet ${e.type}`, firstLine(detail) ?? "");
    });
  }

  private listen<E extends keyof SwitchboardEvents>(event: E, handler: (...payload: SwitchboardEvents[E]) => void): void {
    const listener = handler as EventEmitter.EventListener<SwitchboardEvents, E>;
    this.board.on(event, listener);
    this.unlisten.push(() => this.board.off(event, listener));
  }

  private note(server: string, event: string, detail: string): void {
    this.lifecycle.push({ at: Date.now(), server, event, detail });
    if (this.lifecycle.length > KEPT_LIFECYCLE) this.lifecycle.shift();
    this.changed();
  }

  // ---- the tap: on every tool call's path ----------------------------------------------------------

  called<T>(name: string, given: Record<string, unknown> | undefined, call: Promise<T>): Promise<T> {
    const pending = this.start(name, given);
    // A side reaction, not a link in the caller's chain: the caller awaits the board's own promise, so
    // the tap adds no microtask hop to its call, and the reactions are the pending's own, made once.
    void call.then(pending.settled, pending.rejected);
    return call;
  }

  watch<T>(name: string, given: Record<string, unknown> | undefined, ok: (result: T) => T, failed: (error: unknown) => T): WatchedCall<T> {
    const pending = this.start(name, given);
    pending.nextOk = ok as (result: unknown) => unknown;
    pending.nextFailed = failed;
    return pending as WatchedCall<unknown> as WatchedCall<T>;
  }

  private start(name: string, given: Record<string, unknown> | undefined): Pending {
    const pending = this.idle.pop() ?? new Pending(this);
    pending.name = name;
    // Arguments are kept (by reference, until a snapshot formats them) only when they will be shown.
    pending.args = this.capture ? given : undefined;
    pending.started = burstNow();
    return pending;
  }

  /** @internal Called by a Pending as its call settles. */
  finished(pending: Pending, outcome: CallView["outcome"], error: unknown): void {
    const ended = burstNow();
    const ms = ended - pending.started;
    const { name, args } = pending;
    pending.args = undefined;
    pending.nextOk = undefined;
    pending.nextFailed = undefined;
    if (this.idle.length < KEPT_IDLE) this.idle.push(pending);
    // The wall clock from the monotonic one: one clock read per end instead of two.
    const now = TIME_ORIGIN + ended;
    const server = this.serverOf(name);
    // A call this process refused without sending it (an open circuit, a wait past its timeout) says
    // nothing of the server's speed: counted apart, not in calls/s and latency.
    if (outcome === "failed" && error instanceof McpError && !error.delivered) {
      outcome = "refused";
      if (server !== undefined) this.refused.set(server, (this.refused.get(server) ?? 0) + 1);
    } else if (server !== undefined) (this.stats.get(server) ?? this.statsOf(server)).record(now, ms, outcome !== "ok");
    // A ring of records reused in place: no allocation per call once it is full.
    let record = this.calls[this.nextCall];
    if (record === undefined) {
      record = { at: now, name, server, ms, outcome, error, args };
      this.calls[this.nextCall] = record;
    } else {
      record.at = now;
      record.name = name;
      record.server = server;
      record.ms = ms;
      record.outcome = outcome;
      record.error = error;
      record.args = args;
    }
    this.nextCall = this.nextCall + 1 === KEPT_CALLS ? 0 : this.nextCall + 1;
  }

  /** A board in a fleet is counted from its constructor on, before all its servers are named. */
  private statsOf(server: string): CallStats {
    const stats = new CallStats();
    this.stats.set(server, stats);
    return stats;
  }

  /** The server a qualified name belongs to (the longest server name that prefixes it), remembered. */
  private serverOf(name: string): string | undefined {
    // The same tool again (a loop, a benchmark) is one string comparison.
    if (name === this.lastName) return this.lastServer;
    const known = this.serverOfName.get(name);
    if (known !== undefined || this.serverOfName.has(name)) return this.remember(name, known);
    let found: string | undefined;
    for (const server of this.board.serverNames) {
      if (name.startsWith(server + this.board.separator) && (found === undefined || server.length > found.length)) found = server;
    }
    // Bounded: a caller inventing names must not grow it without end.
    if (this.serverOfName.size < 10_000) this.serverOfName.set(name, found);
    return this.remember(name, found);
  }

  private remember(name: string, server: string | undefined): string | undefined {
    this.lastName = name;
    this.lastServer = server;
    return server;
  }

  // ---- agent runs --------------------------------------------------------------------------------------

  agentEvents(label?: string): AgentEvents {
    return this.runs.events(label);
  }

  // ---- the snapshot --------------------------------------------------------------------------------------

  snapshot(): Snapshot {
    const now = Date.now();
    // Calls are filed by the monotonic clock's wall time (finished()), which drifts from Date.now(): the
    // seconds are cut by the same clock, or a call near a boundary lands in a second the page skips.
    const statsNow = TIME_ORIGIN + performance.now();
    const status = this.board.status();
    const servers: ServerView[] = [];
    for (const [name, s] of Object.entries(status)) {
      const live = sessionOf(this.board, name);
      if (live !== undefined) this.lastSession.set(name, live);
      const kept = live ?? this.lastSession.get(name);
      servers.push({
        name,
        state: s.state,
        restarts: s.restarts,
        lastExit: this.lastExit.get(name),
        lastError: firstLine(s.lastError),
        downReason: firstLine(s.downReason),
        circuit: s.circuit,
        inFlight: s.inFlight,
        queued: s.queued,
        waiting: s.waiting,
        paused: s.paused,
        fleetLimit: s.fleetLimit,
        refused: this.refused.get(name) ?? 0,
        fallbacks: [...s.fallbacks],
        session: kept === undefined ? undefined : { ...kept, live: live !== undefined },
        stats: (this.stats.get(name) ?? new CallStats()).series(statsNow),
      });
    }
    const calls: CallView[] = [];
    for (let i = 0; i < this.calls.length; i++) {
      const record = this.calls[(this.nextCall + i) % this.calls.length];
      if (record === undefined) continue;
      calls.push({
        at: record.at,
        name: record.name,
        server: record.server,
        ms: Math.round(record.ms * 1000) / 1000,
        outcome: record.outcome,
        error: record.error === undefined ? undefined : firstLine(errorText(record.error)),
        args: argsText(record.args, this.capture),
        code: codeText(record.name, record.args, this.capture),
      });
    }
    const runs = this.runs.list().map((run) => ({ ...run, messages: runMessages(run.messages, this.capture) }));
    return {
      at: now,
      separator: this.board.separator,
      captureToolContent: this.capture,
      servers,
      calls,
      lifecycle: [...this.lifecycle],
      runs,
      fleet: this.fleet?.current(),
      gateway: gatewaySessionsOf(this.board),
    };
  }

  /**
   * A fleet member's model (counting since the board joined) serves an observer opened later: it takes
   * that observer's content setting and change signal, and gives them back as the observer closes.
   */
  attach(capture: boolean, changed: () => void): void {
    this.capture = capture;
    this.changed = changed;
  }

  /** What this process sends the fleet with its heartbeat: names, states and numbers only. */
  summary(): MemberSummary {
    const statsNow = TIME_ORIGIN + performance.now();
    const servers = Object.entries(this.board.status()).map(([name, s]) => {
      const second = lastSecond(this.stats.get(name), statsNow);
      return {
        name,
        state: s.state,
        inFlight: s.inFlight,
        waiting: s.waiting,
        paused: s.paused,
        fleetLimit: s.fleetLimit,
        restarts: s.restarts,
        circuit: s.circuit,
        callsPerSecond: second.rate,
        p50: second.p50,
        p99: second.p99,
      };
    });
    return { host: HOST, pid: process.pid, startedAt: Math.round(TIME_ORIGIN), servers };
  }

  close(): void {
    for (const off of this.unlisten.splice(0)) off();
  }
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : (JSON.stringify(error) ?? typeof error);
}
