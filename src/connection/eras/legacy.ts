/**
 * The session era (2024-11-05 .. 2025-11-25): an `initialize` handshake fixes the version and the
 * capabilities for the life of the connection, requests go out as they are, the server may send
 * requests of its own, and its notifications arrive unasked.
 */
import { ErrorCode } from "../../jsonrpc/codes.js";
import { ProtocolError, RequestCancelledError } from "../../jsonrpc/errors.js";
import type { JsonRpcId } from "../../jsonrpc/messages.js";
import { isObject } from "../../util/guards.js";
import { sleep } from "../../util/timers.js";
import type { PendingRequest } from "../request-table.js";
import type { RequestOptions } from "../request-options.js";
import { asResourceNotFound, notInEra } from "./era-errors.js";
import type { Subscription } from "./listen.js";
import { cancelledRequestId, emitNotificationEvent, notifyCancelled } from "./notifications.js";
import { LEGACY_PROTOCOL_VERSIONS, speaks } from "./versions.js";
import type { Dialect, EraRules, Implementation, Negotiated, Params, Result, Wire } from "./dialect.js";

/** Methods that do not exist in the session era. */
const MODERN_ONLY = new Set(["server/discover", "subscriptions/listen"]);

/**
 * How the session era treats traffic the client did not start. Also negotiation's rules until the era
 * is decided (see negotiate.ts).
 */
export class LegacyRules implements EraRules {
  constructor(protected readonly wire: Wire) {}

  refuseServerRequest(): undefined {
    return undefined;
  }

  cancel(entry: PendingRequest, reason: string): void {
    // `initialize` must never be cancelled (spec); the connection fails instead.
    if (entry.method === "initialize") return;
    notifyCancelled(this.wire, entry.id, reason);
  }

  onNotification(method: string, params: Params | undefined): void {
    if (method !== "notifications/cancelled") {
      emitNotificationEvent(this.wire, method, params);
      return;
    }
    const id = cancelledRequestId(params);
    if (id === undefined) return;
    this.wire.cancelServerRequest(id, new RequestCancelledError(`The server cancelled its request ${String(id)}`));
    this.wire.emit("cancelled", params as { requestId: JsonRpcId });
  }
}

export class LegacyDialect extends LegacyRules implements Dialect {
  readonly era = "legacy" as const;

  constructor(
    wire: Wire,
    readonly protocolVersion: string,
  ) {
    super(wire);
  }

  request(method: string, params: Params | undefined, options?: RequestOptions): Promise<Result> {
    if (MODERN_ONLY.has(method)) return Promise.reject(notInEra(method, this.era, this.protocolVersion));
    const pending = this.wire.roundTrip(method, params, options);
    if (method !== "resources/read") return pending;
    return pending.catch((error: unknown) => {
      throw asResourceNotFound(error, params?.uri);
    });
  }

  /** The era has no listen stream: change notifications arrive unsolicited. */
  listen(): Promise<Subscription> {
    return Promise.reject(notInEra("subscriptions/listen", this.era, this.protocolVersion));
  }

  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.wire.roundTrip("resources/subscribe", { uri }, options);
  }

  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.wire.roundTrip("resources/unsubscribe", { uri }, options);
  }

  notify(method: string, params?: Params): Promise<void> {
    return this.wire.sendNotification(method, params);
  }
}

/** Runs `initialize` + `notifications/initialized` and returns the server's facts. */
export async function initializeLegacy(wire: Wire, offer: string = LEGACY_PROTOCOL_VERSIONS[0], timeoutMs = wire.requestTimeoutMs): Promise<Negotiated> {
  const result = await wire.roundTrip(
    "initialize",
    { protocolVersion: offer, capabilities: wire.clientCapabilities, clientInfo: wire.clientInfo },
    { timeoutMs },
  );
  const version = result.protocolVersion;
  if (!speaks(version, "legacy")) {
    throw new ProtocolError(
      `Server answered initialize with protocol version ${JSON.stringify(version)}; this client speaks ${LEGACY_PROTOCOL_VERSIONS.join(", ")} (offered ${offer})`,
      ErrorCode.InvalidParams,
      { supported: [...LEGACY_PROTOCOL_VERSIONS], received: version },
    );
  }
  wire.transport.setProtocolVersion?.(version);
  await wire.sendNotification("notifications/initialized");
  // HTTP: the standalone stream for server-initiated messages. A server without one answers 405.
  // Ready waits (bounded) until the stream is open: a server that sends a request of its own not tied
  // to a client request (sampling, elicitation) puts it on this stream and drops it if there is none yet,
  // so a call made right after connect() could otherwise wait forever for its answer.
  const serverStream = wire.transport.openServerStream?.().catch((error: Error) => wire.emit("error", error));
  if (serverStream !== undefined) await settledWithin(serverStream, SERVER_STREAM_OPEN_WAIT_MS);
  return {
    dialect: new LegacyDialect(wire, version),
    protocolVersion: version,
    serverCapabilities: isObject(result.capabilities) ? result.capabilities : {},
    serverInfo: isObject(result.serverInfo) ? (result.serverInfo as Implementation) : undefined,
    instructions: typeof result.instructions === "string" ? result.instructions : undefined,
  };
}

/** How long `initialize` waits for the standalone GET stream's response headers before going ready anyway. */
const SERVER_STREAM_OPEN_WAIT_MS = 1000;

/** Resolves when `promise` settles or `ms` pass, whichever is first; leaves no timer behind. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  const settled = new AbortController();
  await Promise.race([promise, sleep(ms, settled.signal)]);
  settled.abort();
}
