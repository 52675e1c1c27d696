/**
 * A 2026 client's input rounds across a gateway's replicas. The call that waits on the client's input
 * runs in the replica that answered `input_required` (input-required.ts), but a round-robin balancer
 * sends the retry anywhere. A replica that does not hold the retry's `requestState` asks every replica
 * through the fleet's Redis; the one holding it says so at once, runs the round, and sends its outcome
 * back. Nobody saying so within CLAIM_MS means no replica holds it (expired, used, or its replica is
 * gone): the client gets -32602 as in one process. The client closing its retry cancels the round
 * where it runs.
 */
import { randomBytes } from "node:crypto";
import type { GatewaySessionShare } from "../fleet/gateway-sessions.js";
import { ProtocolError, RequestCancelledError } from "../jsonrpc/errors.js";
import type { JsonRpcErrorObject } from "../jsonrpc/messages.js";
import type { InputRounds, RelayedRound } from "./input-required.js";
import { wireError } from "./wire-error.js";

type Params = Record<string, unknown>;

/** How long a replica waits for another to say it holds a retry's call: a Redis round trip or two. */
export const CLAIM_MS = 2_000;

type Note =
  | { t: "ask"; c: string; round: RelayedRound }
  | { t: "held"; c: string }
  | { t: "done"; c: string; result?: Params; error?: JsonRpcErrorObject }
  | { t: "cancel"; c: string };

interface Asking {
  held(): void;
  done(note: Extract<Note, { t: "done" }>): void;
}

/** Makes `rounds` pass retries it does not hold to the other replicas, and run theirs that it holds. */
export function relayRounds(share: GatewaySessionShare, rounds: InputRounds): void {
  const send = (note: Note) => share.relay(JSON.stringify(note));
  /** This replica's retries waiting on another's round, by correlation id. */
  const asking = new Map<string, Asking>();
  /** Other replicas' retries running here, by correlation id: their cancels abort them. */
  const running = new Map<string, AbortController>();

  share.listenRounds((text) => {
    const note = JSON.parse(text) as Note;
    if (note.t === "ask") {
      const controller = new AbortController();
      const round = rounds.resumeRelayed(note.round, controller.signal);
      if (round === undefined) return;
      running.set(note.c, controller);
      send({ t: "held", c: note.c });
      void round
        .then(
          (result): Note => ({ t: "done", c: note.c, result }),
          (error: unknown): Note => ({ t: "done", c: note.c, error: wireError(error) }),
        )
        .then((done) => {
          running.delete(note.c);
          send(done);
        });
    } else if (note.t === "cancel") running.get(note.c)?.abort();
    else if (note.t === "held") asking.get(note.c)?.held();
    else asking.get(note.c)?.done(note);
  });

  rounds.relay = (round, signal) =>
    new Promise<Params | undefined>((resolve, reject) => {
      const c = randomBytes(12).toString("base64url");
      const finish = (then: () => void) => {
        clearTimeout(unclaimed);
        signal.removeEventListener("abort", onAbort);
        asking.delete(c);
        then();
      };
      // One timer per retry that reached the wrong replica, not per call: most calls never ask.
      const unclaimed = setTimeout(() => finish(() => resolve(undefined)), CLAIM_MS);
      const onAbort = () => {
        send({ t: "cancel", c });
        finish(() => reject(new RequestCancelledError(`${round.what} was cancelled by the client`)));
      };
      asking.set(c, {
        held: () => clearTimeout(unclaimed),
        done: (note) => finish(() => (note.error === undefined ? resolve(note.result ?? {}) : reject(ProtocolError.fromWire(note.error)))),
      });
      signal.addEventListener("abort", onAbort, { once: true });
      send({ t: "ask", c, round });
    });
}
