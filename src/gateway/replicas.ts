/**
 * 2025-era sessions shared by a gateway's replicas through the board's fleet (the Redis side is
 * src/fleet/gateway-sessions.ts), so N gateways behind a round-robin load balancer need no sticky
 * sessions. A session's state (principal, protocol version, client info, log level) is written to
 * Redis when `initialize` or `logging/setLevel` changes it; a replica that meets a session it does not
 * hold reads it once and keeps it, so a call costs no Redis round trip. TTLs are renewed by the sweep,
 * one pipeline for every session used since the last one; DELETE removes the key and tells the others.
 *
 * Messages outside responses (list changes, log messages) go through Redis too: each replica
 * publishes its board's, numbered by one fleet-wide counter, and every replica writes them to the GET
 * streams it holds and keeps the last ones. A client whose stream ends (its replica died) reconnects
 * through the load balancer with `Last-Event-ID` and gets what it missed from whichever replica it
 * reaches. With Redis away, a replica serves the sessions it holds (and opens new ones) from its own
 * memory and writes them back when Redis returns.
 */
import type { ServerResponse } from "node:http";
import type { GatewaySessionShare } from "../fleet/gateway-sessions.js";
import type { JsonRpcId, JsonRpcNotification, JsonRpcResponse } from "../jsonrpc/messages.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { isObject } from "../util/guards.js";
import { forwardBoardEvents } from "./board-events.js";
import { wantsLog, type Downstream, type LogLevel } from "./downstream.js";
import { eventFrame } from "./http-io.js";
import { Session, SessionStore } from "./sessions.js";

/** How many fleet-wide messages each replica keeps for clients that reconnect their GET stream. */
const KEPT_EVENTS = 256;

/** How a replica's note on a session says "cancel this request" (a state is a JSON object). */
const CANCEL = "cancel:";
/** How it says "here is the client's answer to a request one of you sent it". */
const ANSWER = "answer:";

/** A session's state in Redis (short names: it is written once per session and change). */
interface SharedState {
  p?: string | undefined;
  v: string;
  c?: { name?: unknown; version?: unknown } | undefined;
  l?: LogLevel | undefined;
  /** What the client declared in `initialize`: whether any replica's call may ask it for sampling, elicitation, roots. */
  k?: Record<string, unknown> | undefined;
}

const stateOf = (session: Session): string =>
  JSON.stringify({
    p: session.principal,
    v: session.protocolVersion,
    c: session.clientInfo,
    l: session.logLevel,
    k: session.capabilities,
  } satisfies SharedState);

function apply(session: Session, text: string): void {
  const state = JSON.parse(text) as SharedState;
  session.protocolVersion = state.v;
  session.clientInfo = isObject(state.c) ? state.c : undefined;
  session.logLevel = state.l;
  session.capabilities = isObject(state.k) ? state.k : undefined;
}

/** Whether `session` asked for `message` (a log message only at its level or above). */
function wants(session: Downstream, message: JsonRpcNotification): boolean {
  return message.method !== "notifications/message" || wantsLog(session, message.params?.level as LogLevel);
}

type Replay = (session: Session, response: ServerResponse, after: number) => void;

/** A session whose stream's messages are numbered fleet-wide, so it replays from the replica's kept messages. */
class ReplicaSession extends Session {
  constructor(
    principal: string | undefined,
    maxUnread: number,
    id: string | undefined,
    private readonly replay: Replay,
  ) {
    super(principal, maxUnread, id);
  }

  /** A message for this session alone: not numbered (the fleet's numbers are for messages every replica has). */
  override push(message: JsonRpcNotification): void {
    this.write(eventFrame(message));
  }

  override attach(response: ServerResponse, lastEventId: string | undefined): void {
    const after = lastEventId === undefined ? Number.NaN : Number(lastEventId);
    if (Number.isInteger(after)) this.replay(this, response, after);
    super.attach(response, undefined);
  }
}

export class ReplicaSessions extends SessionStore {
  private readonly kept: Array<{ seq: number; message: JsonRpcNotification; frame: string }> = [];
  private readonly loading = new Map<string, Promise<Session | undefined>>();
  /** Sessions another replica ended while this one was reading them. */
  private readonly endedWhileLoading = new Set<string>();
  private lastTouch = Date.now();

  constructor(
    private readonly share: GatewaySessionShare,
    idleMs: number,
    max: number,
    maxUnread: number,
  ) {
    super(idleMs, max, maxUnread);
    share.listen({
      session: (id, state) => this.changedElsewhere(id, state),
      events: (first, messages) => this.heard(first, messages),
      resync: () => void this.recheck(),
    });
  }

  private readonly replay: Replay = (session, response, after) => {
    for (const { seq, message, frame } of this.kept) if (seq > after && wants(session, message)) response.write(frame);
  };

  protected override create(principal: string | undefined): Session {
    return new ReplicaSession(principal, this.maxUnread, undefined, this.replay);
  }

  override get(id: string, principal: string | undefined): Session | undefined | Promise<Session | undefined> {
    const cached = this.sessions.get(id);
    if (cached !== undefined) return cached.principal === principal ? cached : undefined;
    let loading = this.loading.get(id);
    if (loading === undefined) {
      loading = this.load(id).finally(() => {
        this.loading.delete(id);
        this.endedWhileLoading.delete(id);
      });
      this.loading.set(id, loading);
    }
    return loading.then((session) => (session?.principal === principal ? session : undefined));
  }

  private async load(id: string): Promise<Session | undefined> {
    const [text] = (await this.share.load([id])) ?? [];
    if (text === undefined || this.endedWhileLoading.has(id)) return undefined;
    const state = JSON.parse(text) as SharedState;
    const session = new ReplicaSession(state.p, this.maxUnread, id, this.replay);
    apply(session, text);
    // Beyond the limit it still serves this request, uncached: the limit bounds memory, not the fleet's sessions.
    if (this.sessions.size < this.max) this.sessions.set(id, session);
    return session;
  }

  /** Written before the answer goes out, so the client's next request finds it on any replica. */
  override async save(session: Session): Promise<void> {
    await this.share.save(session.id, stateOf(session), this.idleMs);
  }

  /** A cancel for a request this replica is not running: the replica running it (if any) aborts it. */
  override notified(session: Session, message: JsonRpcNotification): void {
    const id = message.params?.requestId;
    if (message.method === "notifications/cancelled" && (typeof id === "string" || typeof id === "number") && !session.inFlight.has(id))
      this.share.tell(session.id, `${CANCEL}${JSON.stringify(id)}`);
  }

  /** An answer to a server request another replica sent on a call it runs: that replica settles it. */
  override answeredElsewhere(session: Session, response: JsonRpcResponse): void {
    this.share.tell(session.id, `${ANSWER}${JSON.stringify(response)}`);
  }

  /** Answered once Redis has it, so the other replicas have been told by the time the client hears. */
  override async delete(session: Session): Promise<void> {
    this.evict(session);
    await this.share.remove(session.id);
  }

  protected override tick(): void {
    super.tick();
    const since = this.lastTouch;
    this.lastTouch = Date.now();
    const used: string[] = [];
    for (const session of this.sessions.values())
      if (session.stream !== undefined || session.inFlight.size > 0 || session.lastSeen >= since) used.push(session.id);
    this.share.touch(used, this.idleMs);
  }

  private changedElsewhere(id: string, note: string | undefined): void {
    const session = this.sessions.get(id);
    if (note?.startsWith(CANCEL)) {
      session?.inFlight.get(JSON.parse(note.slice(CANCEL.length)) as JsonRpcId)?.abort();
      return;
    }
    if (note?.startsWith(ANSWER)) {
      session?.requests?.answered(JSON.parse(note.slice(ANSWER.length)) as JsonRpcResponse);
      return;
    }
    if (note !== undefined) {
      if (session !== undefined) apply(session, note);
      return;
    }
    if (this.loading.has(id)) this.endedWhileLoading.add(id);
    if (session !== undefined) this.evict(session);
  }

  /**
   * After a (re)subscribe: what changed meanwhile was not heard, so every cached copy is read again. A
   * copy Redis lacks is written back: Redis lost it (a restart without persistence) or never had it (opened
   * while Redis was away); a DELETE missed meanwhile costs only a key that expires unused.
   */
  private async recheck(): Promise<void> {
    const ids = [...this.sessions.keys()];
    const states = await this.share.load(ids);
    if (states === undefined) return;
    ids.forEach((id, i) => {
      const session = this.sessions.get(id);
      const state = states[i];
      if (session === undefined) return;
      if (state === undefined) void this.save(session);
      else apply(session, state);
    });
  }

  private heard(first: number, text: string): void {
    const messages = JSON.parse(text) as JsonRpcNotification[];
    messages.forEach((message, i) => {
      const seq = first + i;
      const frame = `id: ${seq}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
      this.kept.push({ seq, message, frame });
      if (this.kept.length > KEPT_EVENTS) this.kept.shift();
      for (const session of this.sessions.values()) if (session.stream !== undefined && wants(session, message)) session.write(frame);
    });
  }

  /** Publishes the board's list changes and log messages to every replica; the function returned stops it. */
  forward(board: Switchboard): () => void {
    let batch: JsonRpcNotification[] = [];
    let pending: NodeJS.Immediate | undefined;
    const flush = async () => {
      pending = undefined;
      const messages = batch;
      batch = [];
      const first = await this.share.broadcast(JSON.stringify(messages), messages.length);
      // Redis away: this replica's own streams still hear its board, unnumbered.
      if (first === undefined) for (const message of messages) for (const session of this.sessions.values()) if (wants(session, message)) session.push(message);
    };
    // Every message the board sends (log messages at any level); each replica filters per session.
    const everything: Downstream = {
      principal: undefined,
      protocolVersion: "",
      clientInfo: undefined,
      logLevel: "debug",
      inFlight: new Map<JsonRpcId, AbortController>(),
      push: (message) => {
        batch.push(message);
        pending ??= setImmediate(() => void flush());
      },
    };
    const stop = forwardBoardEvents(board, () => [everything]);
    return () => {
      stop();
      if (pending !== undefined) clearImmediate(pending);
    };
  }
}
