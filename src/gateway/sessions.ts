/**
 * The 2025-era sessions one gateway holds: each a Downstream with its GET stream, the recent messages
 * sent outside responses (so a client reconnecting with `Last-Event-ID` gets what it missed), and the
 * time of its last request. One timer for all sessions closes the idle ones; none is armed per request.
 */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from "../jsonrpc/messages.js";
import { writeOrCut } from "../util/event-stream.js";
import type { ClientRequests } from "./client-requests.js";
import type { Downstream, LogLevel } from "./downstream.js";

/** How many messages a session keeps for a client that reconnects its GET stream. */
const REPLAY_DEPTH = 64;
/** A comment on every open GET stream this often, so proxies do not close a quiet one. */
const KEEPALIVE_MS = 25_000;

export class Session implements Downstream {
  protocolVersion = "";
  clientInfo: { name?: unknown; version?: unknown } | undefined;
  capabilities: Record<string, unknown> | undefined;
  requests: ClientRequests | undefined;
  logLevel: LogLevel | undefined;
  readonly inFlight = new Map<JsonRpcId, AbortController>();
  readonly startedAt = Date.now();
  lastSeen = this.startedAt;
  calls = 0;
  stream: ServerResponse | undefined;
  private sent = 0;
  private readonly recent: Array<{ seq: number; frame: string }> = [];

  constructor(
    readonly principal: string | undefined,
    /** How far behind its GET stream's client may fall before the stream is cut (gateway.maxUnreadBytes). */
    private readonly maxUnread: number,
    readonly id: string = randomUUID(),
  ) {}

  push(message: JsonRpcNotification | JsonRpcRequest): void {
    const seq = ++this.sent;
    const frame = `id: ${seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
    this.recent.push({ seq, frame });
    if (this.recent.length > REPLAY_DEPTH) this.recent.shift();
    this.write(frame);
  }

  /**
   * Writes `frame` on the GET stream, if one is open. A client that stopped reading has it cut once it
   * is maxUnread bytes behind; reconnecting with Last-Event-ID, it gets what the replay still holds.
   */
  write(frame: string): void {
    if (this.stream !== undefined && !writeOrCut(this.stream, frame, this.maxUnread)) this.stream = undefined;
  }

  /** Makes `response` the session's GET stream, first sending what came after `lastEventId`. */
  attach(response: ServerResponse, lastEventId: string | undefined): void {
    this.stream = response;
    const after = lastEventId === undefined ? Number.NaN : Number(lastEventId);
    if (Number.isInteger(after)) for (const { seq, frame } of this.recent) if (seq > after) response.write(frame);
    response.on("close", () => {
      if (this.stream === response) this.stream = undefined;
      this.lastSeen = Date.now();
    });
  }

  close(): void {
    for (const controller of this.inFlight.values()) controller.abort();
    this.requests?.close();
    this.stream?.end();
    this.stream = undefined;
  }
}

export class SessionStore {
  protected readonly sessions = new Map<string, Session>();
  private readonly sweep: NodeJS.Timeout;

  constructor(
    readonly idleMs: number,
    readonly max: number,
    protected readonly maxUnread: number,
  ) {
    this.sweep = setInterval(() => this.tick(), Math.min(KEEPALIVE_MS, Math.max(10, Math.floor(idleMs / 4))));
    this.sweep.unref();
  }

  /** Called for each session this process lets go of (the gateway ends its resource subscriptions). */
  onEvict: (session: Session) => void = () => undefined;

  get size(): number {
    return this.sessions.size;
  }

  /** A new session, or undefined when the gateway holds as many as it may. */
  open(principal: string | undefined): Session | undefined {
    if (this.sessions.size >= this.max) return undefined;
    const session = this.create(principal);
    this.sessions.set(session.id, session);
    return session;
  }

  protected create(principal: string | undefined): Session {
    return new Session(principal, this.maxUnread);
  }

  /** The session `id` names, if it exists and belongs to `principal` (another principal's is not found). */
  get(id: string, principal: string | undefined): Session | undefined | Promise<Session | undefined> {
    const session = this.sessions.get(id);
    return session !== undefined && session.principal === principal ? session : undefined;
  }

  /** After a request changed the session's state (initialize, logging/setLevel): in memory, nothing to do. */
  save(_session: Session): Promise<void> | void {}

  /** After the handler took a notification of the session's (a replica passes on a cancel it could not act on). */
  notified(_session: Session, _message: JsonRpcNotification): void {}

  /** The client's answer to a request this process did not send it (a replica passes it on to the others). */
  answeredElsewhere(_session: Session, _response: JsonRpcResponse): void {}

  /** The client ended the session (DELETE). */
  delete(session: Session): Promise<void> | void {
    this.evict(session);
  }

  /** This process lets go of the session (idle, or ended). */
  protected evict(session: Session): void {
    this.sessions.delete(session.id);
    session.close();
    this.onEvict(session);
  }

  all(): IterableIterator<Session> {
    return this.sessions.values();
  }

  protected tick(): void {
    const now = Date.now();
    let keepalive: boolean | undefined;
    for (const session of this.sessions.values()) {
      if (session.stream !== undefined) {
        // A keep-alive at most once per KEEPALIVE_MS, whatever the sweep's period.
        keepalive ??= now - this.lastKeepalive >= KEEPALIVE_MS;
        if (keepalive) session.write(":\n\n");
      } else if (session.inFlight.size === 0 && now - session.lastSeen > this.idleMs) this.evict(session);
    }
    if (keepalive) this.lastKeepalive = now;
  }
  private lastKeepalive = Date.now();

  close(): void {
    clearInterval(this.sweep);
    for (const session of this.sessions.values()) {
      session.close();
      this.onEvict(session);
    }
    this.sessions.clear();
  }
}
