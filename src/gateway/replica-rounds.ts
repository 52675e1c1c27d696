/**
 * A 2026 client's input rounds across a gateway's replicas. The call that waits on the client's input
 * runs in the replica that answered `input_required` (input-required.ts), but a round-robin balancer
 * sends the retry anywhere. Each replica listens on a channel of its own under a random tag, and the
 * states it gives begin with that tag: a replica that does not hold a retry's `requestState` asks the
 * replica the state names, through the fleet's Redis (a state without a tag, from a replica that gave
 * none, is asked of every replica). The one holding it says so at once, runs the round, and sends its
 * outcome (and its logs, when the retry asked for them) back to the asker's channel. Nobody saying so
 * within CLAIM_MS means no replica holds it (expired, used, or its replica is gone): the client gets
 * -32602 as in one process. While the round runs its holder says it is alive every ALIVE_MS; three of
 * those without a word mean the holder died, and the retry fails saying so rather than waiting forever.
 * The client closing its retry cancels the round where it runs, and so does the asking replica dying
 * with it: that replica answers each "alive" note, and two unanswered ones leave nobody waiting for the
 * round's outcome.
 */
import { randomBytes } from "node:crypto";
import type { GatewaySessionShare } from "../fleet/gateway-sessions.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import type { LogParams } from "../connection/events.js";
import { ProtocolError, RequestCancelledError } from "../jsonrpc/errors.js";
import type { JsonRpcErrorObject } from "../jsonrpc/messages.js";
import { InputRounds, type RelayedRound } from "./input-required.js";
import { pendingAnswer } from "./pending-answer.js";
import { wireError } from "./wire-error.js";

type Params = Record<string, unknown>;

/** How long a replica waits for another to say it holds a retry's call: a Redis round trip or two. */
export const CLAIM_MS = 2_000;
/** How often the replica running another's round says it still does. */
export const ALIVE_MS = 5_000;

type Note =
  | { t: "ask"; c: string; f: string; round: RelayedRound; l: boolean }
  | { t: "log"; c: string; params: LogParams }
  | { t: "held"; c: string }
  | { t: "alive"; c: string }
  | { t: "waiting"; c: string }
  | { t: "done"; c: string; result?: Params; error?: JsonRpcErrorObject }
  | { t: "cancel"; c: string };

/** Another replica's retry running here. */
interface Running {
  readonly controller: AbortController;
  /** "alive" notes sent since the asking replica last answered one. */
  unanswered: number;
}

interface Asking {
  /** The tag of the replica the state names (undefined: every replica was asked). */
  readonly holder: string | undefined;
  /** Where the round's logs go (the client's retry), if it asked for them. */
  readonly log: ((params: LogParams) => void) | undefined;
  /** The holder claimed the round, or said it still runs it. */
  held(): void;
  done(note: Extract<Note, { t: "done" }>): void;
}

/** Makes `rounds` pass retries it does not hold to the other replicas, and run theirs that it holds. */
export function relayRounds(share: GatewaySessionShare, rounds: InputRounds, timing = { claimMs: CLAIM_MS, aliveMs: ALIVE_MS }): void {
  const me = randomBytes(6).toString("base64url"); // no "." in it: states are `${me}.${random}`
  rounds.tag = me;
  const send = (note: Note, to: string | undefined) => share.relay(JSON.stringify(note), to);
  /** This replica's retries waiting on another's round, by correlation id. */
  const asking = new Map<string, Asking>();
  /** Other replicas' retries running here, by correlation id: their cancels abort them. */
  const running = new Map<string, Running>();

  share.listenRounds((text) => {
    const note = JSON.parse(text) as Note;
    if (note.t === "ask") {
      const controller = new AbortController();
      // The round's logs go back to the asker, which writes them to the client's retry (`l`: it asked for them).
      const logTo = note.l ? (params: LogParams) => send({ t: "log", c: note.c, params }, note.f) : undefined;
      const round = rounds.resumeRelayed(note.round, controller.signal, logTo);
      if (round === undefined) return;
      const asker = note.f; // where this round's notes go
      const here: Running = { controller, unanswered: 0 };
      running.set(note.c, here);
      send({ t: "held", c: note.c }, asker);
      // The asking replica answers each "alive": two left unanswered mean it died with the client's
      // retry, so nobody waits for this round any more and the call is cancelled upstream.
      const alive = setInterval(() => {
        if (here.unanswered >= 2) controller.abort();
        else {
          here.unanswered++;
          send({ t: "alive", c: note.c }, asker);
        }
      }, timing.aliveMs);
      alive.unref();
      void round
        .then(
          (result): Note => ({ t: "done", c: note.c, result }),
          (error: unknown): Note => ({ t: "done", c: note.c, error: wireError(error) }),
        )
        .then((done) => {
          clearInterval(alive);
          running.delete(note.c);
          send(done, asker);
        });
    } else if (note.t === "cancel") running.get(note.c)?.controller.abort();
    else if (note.t === "log") asking.get(note.c)?.log?.(note.params);
    else if (note.t === "waiting") {
      const here = running.get(note.c);
      if (here !== undefined) here.unanswered = 0;
    } else if (note.t === "held") asking.get(note.c)?.held();
    else if (note.t === "alive") {
      const waiting = asking.get(note.c);
      if (waiting === undefined) return;
      waiting.held();
      send({ t: "waiting", c: note.c }, waiting.holder);
    } else asking.get(note.c)?.done(note);
  }, me);

  rounds.relay = (round, signal, logTo) => {
    const c = randomBytes(12).toString("base64url");
    const holder = InputRounds.holderOf(round.state);
    let silence: NodeJS.Timeout | undefined;
    const forget = () => {
      clearTimeout(silence);
      asking.delete(c);
    };
    return pendingAnswer<Params | undefined>(
      signal,
      ({ resolve, reject }) => {
        const holderGone = () => {
          forget();
          reject(
            new ProtocolError(
              `The gateway replica running ${round.what} stopped answering (it may have died), and the call with it: make the call again`,
              ErrorCode.InternalError,
            ),
          );
        };
        // One timer per retry that reached the wrong replica, not per call: most calls never ask. Unclaimed
        // within claimMs, no replica holds it; claimed, the holder must speak every aliveMs.
        silence = setTimeout(() => (forget(), resolve(undefined)), timing.claimMs).unref();
        asking.set(c, {
          holder,
          log: logTo,
          held: () => {
            clearTimeout(silence);
            silence = setTimeout(holderGone, timing.aliveMs * 3).unref();
          },
          done: (note) => (forget(), note.error === undefined ? resolve(note.result ?? {}) : reject(ProtocolError.fromWire(note.error))),
        });
        send({ t: "ask", c, f: me, round, l: logTo !== undefined }, holder);
      },
      () => {
        forget();
        send({ t: "cancel", c }, holder);
        return new RequestCancelledError(`${round.what} was cancelled by the client`);
      },
    );
  };
}
