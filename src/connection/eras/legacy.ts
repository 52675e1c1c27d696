/**
 * The session era (2024-11-05 .. 2025-11-25): an `initialize` handshake fixes the version and the
 * capabilities for the life of the connection, requests go out as they are, and the server may send
 * requests of its own.
 */
import { MethodNotSupportedError, ProtocolError } from "../../jsonrpc/errors.js";
import type { RequestOptions } from "../request-options.js";
import { asResourceNotFound } from "./era-errors.js";
import type { Subscription } from "./listen.js";
import type { PendingRequest } from "../request-table.js";
import {
  notificationCancelled,
  type Dialect,
  type Implementation,
  type Negotiated,
  type Params,
  type Result,
  type Wire,
} from "./dialect.js";
import { isObject } from "../../util/guards.js";

/** Newest first: the first is what the client offers. */
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
export const LATEST_LEGACY_VERSION = LEGACY_PROTOCOL_VERSIONS[0];

/** Methods that do not exist in the session era. */
const MODERN_ONLY = new Set(["server/discover", "subscriptions/listen"]);

export class LegacyDialect implements Dialect {
  readonly era = "legacy" as const;
  readonly acceptsServerRequests = true;
  constructor(readonly protocolVersion: string) {}

  request(wire: Wire, method: string, params: Params | undefined, options?: RequestOptions): Promise<Result> {
    const pending = wire.roundTrip(method, params, options);
    if (method !== "resources/read") return pending;
    return pending.catch((error: unknown) => {
      throw asResourceNotFound(error, params?.uri);
    });
  }

  /** The era has no listen stream: change notifications arrive unsolicited. */
  listen(): Promise<Subscription> {
    return Promise.reject(notInEra("subscriptions/listen", this.era, this.protocolVersion));
  }

  async subscribeResource(wire: Wire, uri: string, options?: RequestOptions): Promise<void> {
    await wire.roundTrip("resources/subscribe", { uri }, options);
  }

  async unsubscribeResource(wire: Wire, uri: string, options?: RequestOptions): Promise<void> {
    await wire.roundTrip("resources/unsubscribe", { uri }, options);
  }

  notify(wire: Wire, method: string, params?: Params): Promise<void> {
    return wire.sendNotification(method, params);
  }

  hasMethod(method: string): boolean {
    return !MODERN_ONLY.has(method);
  }

  cancel(wire: Wire, entry: PendingRequest, reason: string): void {
    // `initialize` must never be cancelled (spec); the connection fails instead.
    if (entry.method === "initialize") return;
    notificationCancelled(wire, entry.id, reason);
  }
}

export interface LegacyHandshakeOptions {
  /** The version to offer; default the newest. */
  offer?: string;
  timeoutMs?: number;
}

/** Runs `initialize` + `notifications/initialized` and returns the server's facts. */
export async function initializeLegacy(wire: Wire, options: LegacyHandshakeOptions = {}): Promise<Negotiated> {
  const offer = options.offer ?? LATEST_LEGACY_VERSION;
  const result = await wire.roundTrip(
    "initialize",
    { protocolVersion: offer, capabilities: wire.clientCapabilities, clientInfo: wire.clientInfo },
    { timeoutMs: options.timeoutMs ?? wire.requestTimeoutMs },
  );
  const version = result.protocolVersion;
  if (typeof version !== "string" || !(LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(version)) {
    throw new ProtocolError(
      `Server answered initialize with protocol version ${JSON.stringify(version)}; this client speaks ${LEGACY_PROTOCOL_VERSIONS.join(", ")} (offered ${offer})`,
      -32602,
      { supported: [...LEGACY_PROTOCOL_VERSIONS], received: version },
    );
  }
  wire.transport.setProtocolVersion?.(version);
  await wire.sendNotification("notifications/initialized");
  // HTTP: the standalone stream for server-initiated messages. A server without one answers 405.
  // Ready waits (bounded) until the stream is open: a server that sends a request of its own not tied
  // to a client request (sampling, elicitation) puts it on this stream and drops it if there is none yet,
  // so a call made right after connect() could otherwise wait forever for its answer.
  const serverStream = wire.transport.openServerStream?.().catch((error: Error) => wire.warn(error));
  if (serverStream !== undefined) await settledWithin(serverStream, SERVER_STREAM_OPEN_WAIT_MS);
  return {
    dialect: new LegacyDialect(version),
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
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export function notInEra(method: string, era: string, version: string): MethodNotSupportedError {
  return new MethodNotSupportedError(
    `${method} does not exist in protocol ${version} (${era} era); the connection negotiated that version with the server`,
    { method, protocolVersion: version },
  );
}
