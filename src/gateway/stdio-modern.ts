/**
 * The 2026-07-28 era over the gateway's stdio: a request whose `_meta` names a protocol version is
 * answered statelessly (modern.ts), whatever the client sent before, so a client that probes with
 * `server/discover` gets the 2026 era and one that sends `initialize` the 2025 era. On stdio,
 * `notifications/cancelled` cancels a 2026 request or ends a listen (its id is the request's), and a
 * listen's notifications share stdout with everything else, told apart by their subscription id.
 */
import { META_PROTOCOL_VERSION } from "../connection/eras/modern-wire.js";
import type { JsonRpcId, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from "../jsonrpc/messages.js";
import type { Downstream } from "./downstream.js";
import type { GatewayHandler } from "./handler.js";
import { Listen } from "./listens.js";
import { answerModern, envelopeOf, envelopeProblem, requestDownstream } from "./modern.js";

/** How long a listen may take to subscribe upstream before it is acknowledged without what is left. */
const LISTEN_SUBSCRIBE_MS = 30_000;

export class StdioModern {
  readonly listens = new Map<JsonRpcId, Listen>();
  /** 2026 requests running, by id: each has its own Downstream. */
  readonly running = new Map<JsonRpcId, Downstream>();

  constructor(
    private readonly handler: GatewayHandler,
    private readonly send: (message: JsonRpcMessage) => void,
  ) {}

  /** Whether `request` is of the 2026 era (its envelope names a version); if so, answers it. */
  claim(request: JsonRpcRequest): boolean {
    const envelope = envelopeOf(request.params);
    if (envelope?.[META_PROTOCOL_VERSION] === undefined) return false;
    const problem = envelopeProblem(envelope);
    if (problem !== undefined) {
      this.send({ jsonrpc: "2.0", id: request.id, error: problem });
      return true;
    }
    const downstream = requestDownstream(envelope, undefined);
    if (request.method === "subscriptions/listen") {
      const listen = new Listen(request.id, undefined, downstream.protocolVersion, downstream.clientInfo, request.params?.notifications, this.send);
      this.listens.set(request.id, listen);
      void listen.subscribe(this.handler.subscriptions, AbortSignal.timeout(LISTEN_SUBSCRIBE_MS)).then(() => {
        // Cancelled while it subscribed: nothing to acknowledge, and nothing left subscribed.
        if (this.listens.get(request.id) === listen) this.send(listen.acknowledgement());
        else this.handler.subscriptions.release(listen);
      });
      return true;
    }
    this.running.set(request.id, downstream);
    void answerModern(this.handler, request, downstream, this.send).then((response) => {
      this.running.delete(request.id);
      this.send(response);
    });
    return true;
  }

  /** A `notifications/cancelled` for a 2026 request or listen; false when it names neither. */
  cancel(message: JsonRpcNotification): boolean {
    const id = message.params?.requestId as JsonRpcId | undefined;
    if (id === undefined) return false;
    const listen = this.listens.get(id);
    if (listen !== undefined) {
      this.listens.delete(id);
      this.handler.subscriptions.release(listen);
      return true;
    }
    const downstream = this.running.get(id);
    downstream?.inFlight.get(id)?.abort();
    return downstream !== undefined;
  }

  close(): void {
    for (const [id, downstream] of this.running) downstream.inFlight.get(id)?.abort();
    for (const listen of this.listens.values()) this.handler.subscriptions.release(listen);
    this.listens.clear();
    this.handler.inputRounds.close();
  }
}
