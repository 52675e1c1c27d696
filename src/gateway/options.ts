/**
 * What `serveBoard()` takes, checked once when the gateway starts: every bad value is a ConfigError
 * naming its field, so a typo in mcp.json's "gateway" section fails at start rather than at a request.
 */
import { ConfigError } from "../jsonrpc/errors.js";
import type { GatewayAuth } from "./auth.js";

/** The options of `serveBoard()`, and the "gateway" section of mcp.json. */
export interface ServeBoardOptions {
  /** The port to listen on; default 0 (a free port, see `url`). */
  port?: number | undefined;
  /** The address to listen on; default "127.0.0.1". */
  host?: string | undefined;
  /** The MCP endpoint's path; default "/mcp". */
  path?: string | undefined;
  /** Who may call: API keys, JWTs, or a verify function (auth.ts). Default: anyone who can reach the port. */
  auth?: GatewayAuth | undefined;
  /** The largest request body, in bytes; a larger one gets 413. Default 4 MiB. */
  maxBodyBytes?: number | undefined;
  /** The most sessions held at once (2025 era), and the most 2026 listens open; an `initialize` or listen beyond it gets 503. Default 10000. */
  maxSessions?: number | undefined;
  /** The most requests one session (or one stateless client connection) may have running; beyond it, 429. Default 64. */
  maxInFlightPerSession?: number | undefined;
  /** A session without a request or an open stream for this long is closed. Default 30 minutes. */
  sessionIdleMs?: number | undefined;
  /**
   * The most bytes a client may leave unread on one of its event streams. Beyond it, a GET stream or
   * 2026 listen is closed (the client reconnects, a GET stream with Last-Event-ID), and a request's
   * stream drops progress and log notifications until the client catches up. Default 4 MiB.
   */
  maxUnreadBytes?: number | undefined;
  /** The name and version the gateway gives in `initialize` and `server/discover`. Default "mcp-switchboard-gateway". */
  serverInfo?: { name: string; version: string } | undefined;
  /** What the gateway tells clients about itself (`instructions` of `initialize`). */
  instructions?: string | undefined;
  /** False: a board of one server is served under that server's own tool and prompt names (names.ts). Default true. */
  qualifyNames?: boolean | undefined;
}

export interface GatewaySettings {
  port: number;
  host: string;
  path: string;
  auth: GatewayAuth | undefined;
  maxBodyBytes: number;
  maxSessions: number;
  maxInFlightPerSession: number;
  sessionIdleMs: number;
  maxUnreadBytes: number;
  serverInfo: { name: string; version: string };
  instructions: string | undefined;
  qualifyNames: boolean;
}

const MIB = 1024 * 1024;

function positiveInteger(value: unknown, field: string, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min) {
    throw new ConfigError(`expected an integer >= ${min}, found ${JSON.stringify(value) ?? typeof value}`, { field });
  }
  return value;
}

export function gatewaySettings(options: ServeBoardOptions, version: string): GatewaySettings {
  const port = positiveInteger(options.port, "gateway.port", 0, 0);
  if (port > 65535) throw new ConfigError(`expected a port from 0 to 65535 (0: any free port), found ${port}`, { field: "gateway.port" });
  const path = options.path ?? "/mcp";
  if (typeof path !== "string" || !path.startsWith("/") || path.includes("?") || path.includes("#")) {
    throw new ConfigError(`expected a path starting with "/" and without a query, found ${JSON.stringify(path)}`, { field: "gateway.path" });
  }
  const host = options.host ?? "127.0.0.1";
  if (typeof host !== "string" || host === "")
    throw new ConfigError(`expected a host name or address, found ${JSON.stringify(host)}`, { field: "gateway.host" });
  if (options.qualifyNames !== undefined && typeof options.qualifyNames !== "boolean")
    throw new ConfigError(`expected true or false, found ${JSON.stringify(options.qualifyNames)}`, { field: "gateway.qualifyNames" });
  return {
    port,
    host,
    path,
    auth: options.auth,
    maxBodyBytes: positiveInteger(options.maxBodyBytes, "gateway.maxBodyBytes", 4 * MIB),
    maxSessions: positiveInteger(options.maxSessions, "gateway.maxSessions", 10_000),
    maxInFlightPerSession: positiveInteger(options.maxInFlightPerSession, "gateway.maxInFlightPerSession", 64),
    sessionIdleMs: positiveInteger(options.sessionIdleMs, "gateway.sessionIdleMs", 30 * 60_000),
    maxUnreadBytes: positiveInteger(options.maxUnreadBytes, "gateway.maxUnreadBytes", 4 * MIB),
    serverInfo: options.serverInfo ?? { name: "mcp-switchboard-gateway", version },
    instructions: options.instructions,
    qualifyNames: options.qualifyNames ?? true,
  };
}
