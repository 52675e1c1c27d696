/**
 * The attributes every span and metric of one connection share: the transport as the MCP conventions'
 * "Recording MCP transport" table records it, the server's address, the protocol version and (spans
 * only) the session id. Computed once per session, not per request.
 */
import type { Attributes } from "@opentelemetry/api";
import type { SessionFacts } from "../connection/instrumentation.js";
import type { TransportKind } from "../transports/transport.js";
import {
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from "./semconv.js";

/**
 * `network.transport`: "SHOULD be set to tcp or quic if the transport protocol is HTTP. It SHOULD be set
 * to pipe if the transport is stdio." `network.protocol.*`: http for both HTTP transports (Node's
 * http.Agent speaks HTTP/1.1), websocket for WebSocket. An in-memory pair has no network: none of them.
 */
const TRANSPORT_ATTRIBUTES: Record<TransportKind, Attributes> = {
  stdio: { [ATTR_NETWORK_TRANSPORT]: "pipe" },
  "streamable-http": { [ATTR_NETWORK_TRANSPORT]: "tcp", [ATTR_NETWORK_PROTOCOL_NAME]: "http", [ATTR_NETWORK_PROTOCOL_VERSION]: "1.1" },
  sse: { [ATTR_NETWORK_TRANSPORT]: "tcp", [ATTR_NETWORK_PROTOCOL_NAME]: "http", [ATTR_NETWORK_PROTOCOL_VERSION]: "1.1" },
  websocket: { [ATTR_NETWORK_TRANSPORT]: "tcp", [ATTR_NETWORK_PROTOCOL_NAME]: "websocket" },
  memory: {},
};

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443, "ws:": 80, "wss:": 443 };

export interface SessionAttributes {
  /** For spans: with `mcp.session.id`. */
  span: Attributes;
  /** For the duration metrics: without the session id (the conventions list it for spans only). */
  metric: Attributes;
}

/** Keeps the attributes of the session as it is now, recomputing them only when a fact changed. */
export class SessionAttributeCache {
  private kind: TransportKind | undefined;
  private url: URL | undefined;
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private cached: SessionAttributes | undefined;
  /** The version an initialize response named, for what is sent before the connection is ready. */
  private learnedVersion: string | undefined;

  constructor(private readonly facts: SessionFacts) {}

  learnVersion(version: string): void {
    this.learnedVersion = version;
  }

  /** `fallbackVersion` stands in while the session has none yet (a 2026-era request names its own). */
  current(fallbackVersion?: string): SessionAttributes {
    const facts = this.facts;
    const kind = facts.transport;
    const url = facts.url;
    const sessionId = facts.sessionId;
    const protocolVersion = facts.protocolVersion ?? fallbackVersion ?? this.learnedVersion;
    if (this.cached !== undefined && kind === this.kind && url === this.url && sessionId === this.sessionId && protocolVersion === this.protocolVersion) {
      return this.cached;
    }
    this.kind = kind;
    this.url = url;
    this.sessionId = sessionId;
    this.protocolVersion = protocolVersion;
    this.cached = sessionAttributes(kind, url, sessionId, protocolVersion);
    return this.cached;
  }
}

export function sessionAttributes(
  kind: TransportKind,
  url: URL | undefined,
  sessionId: string | undefined,
  protocolVersion: string | undefined,
): SessionAttributes {
  const metric: Attributes = { ...TRANSPORT_ATTRIBUTES[kind] };
  if (url !== undefined) {
    // URL keeps IPv6 literals in brackets; server.address is the bare address.
    metric[ATTR_SERVER_ADDRESS] = url.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = url.port !== "" ? Number(url.port) : DEFAULT_PORTS[url.protocol];
    if (port !== undefined) metric[ATTR_SERVER_PORT] = port;
  }
  if (protocolVersion !== undefined) metric[ATTR_MCP_PROTOCOL_VERSION] = protocolVersion;
  const span = sessionId === undefined ? metric : { ...metric, [ATTR_MCP_SESSION_ID]: sessionId };
  return { span, metric };
}
