/**
 * The shapes of a Switchboard configuration: what users write (`ConfigInput`, `ServerEntryInput`, the
 * `mcpServers` JSON of Claude Desktop, Cursor, VS Code and friends, plus our extensions) and what
 * `loadConfig` returns (`SwitchboardConfig`: validated, variables substituted, defaults filled in).
 */
import type { ConfigError } from "../jsonrpc/errors.js";
import type { OAuthConfig } from "../auth/config.js";
import type { BackoffPolicy } from "../supervisor/backoff.js";
import type { AuthOption } from "../transports/auth.js";
import type { CircuitPolicy } from "../supervisor/circuit-breaker.js";
import type { RestartIntensityLimit } from "../supervisor/restart-intensity.js";
import type { SERVER_FIELDS, TOP_LEVEL_FIELDS } from "./config-fields.js";
import type { InputOf } from "./config-validate.js";
import type { ToolFilter } from "./namespacing.js";
import type { FleetConfig, FleetLimits } from "./fleet-seam.js";

export type RemoteTransportType = "streamable-http" | "sse" | "websocket";
export type TransportType = "stdio" | RemoteTransportType;

// ---------------------------------------------------------------------------------------------------
// Input: what users write, read off the field tables in config-fields.ts (their JSDoc comes along).
// Every field optional here; `loadConfig` says which combinations are valid.
// ---------------------------------------------------------------------------------------------------

export type ServerEntryInput = InputOf<typeof SERVER_FIELDS>;

export type RestartPolicyInput = NonNullable<ServerEntryInput["restart"]>;

export type ConfigInput = InputOf<typeof TOP_LEVEL_FIELDS>;

// ---------------------------------------------------------------------------------------------------
// Output: normalised, every default filled in.
// ---------------------------------------------------------------------------------------------------

export interface RestartPolicy extends RestartIntensityLimit {
  backoff: BackoffPolicy;
  /**
   * After the intensity limit puts the server `down`, start it again after this many ms (with a fresh
   * window). Undefined: it stays down until `board.restart(name)`.
   */
  cooldownMs?: number;
  /** The backoff starts afresh once the server has stayed up this long (a crash sooner keeps it growing). */
  healthyAfterMs: number;
}

interface ServerEntryCommon {
  /** The entry's key in `mcpServers`. */
  name: string;
  disabled: boolean;
  /** Other servers to try, in order, when this one cannot take a call. Not transitive. */
  fallbacks: string[];
  restart: RestartPolicy;
  requestTimeoutMs: number;
  /** Unset: the board's `startTimeoutMs`. */
  startTimeoutMs?: number;
  /** Infinity: no limit. */
  maxConcurrency: number;
  maxQueue: number;
  tools: ToolFilter;
  circuit: CircuitPolicy;
  /** Unset: the client's default ("auto"). */
  protocol?: string;
  autoListen?: boolean;
  /** Unset: the client's default (16 MiB). */
  maxMessageBytes?: number;
  /** Unset: the board's (result-budget.ts). */
  maxResultChars?: number;
  /** Principals may use the server's one connection (principals.ts). */
  shared?: boolean;
  /** Limits shared by the board's fleet. */
  fleet?: FleetLimits;
  /** Started by its first call, not by `board.start()`. */
  lazy?: boolean;
  /** A lazy server stops after this many ms without calls. */
  idleMs?: number;
  /**
   * Set when the entry needs an environment variable that is not set (and `strictEnv` is off): the
   * server stays down with this error's message as its reason; its values are kept as written.
   */
  configError?: ConfigError;
}

export interface StdioServerEntry extends ServerEntryCommon {
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface RemoteServerEntry extends ServerEntryCommon {
  type: RemoteTransportType;
  url: string;
  headers: Record<string, string>;
  oauth?: OAuthConfig;
  auth?: AuthOption;
  /** Code only: one principal's headers (principals.ts). */
  principalHeaders?: (principal: string) => Record<string, string> | Promise<Record<string, string>>;
}

export type ServerEntry = StdioServerEntry | RemoteServerEntry;

export interface SwitchboardOptions {
  separator: string;
}

export interface SwitchboardConfig {
  servers: Record<string, ServerEntry>;
  options: SwitchboardOptions;
  /** The file it came from, as given to `loadConfig`. */
  file?: string;
  /** The top-level `fleet`: the board builds a fleet from it (fleet-seam.ts). */
  fleet?: FleetConfig;
  /** The top-level `gateway`, checked: what `mcp-switchboard serve` serves the board with. */
  gateway?: ConfigInput["gateway"];
}

/** The connection target of an entry, as `connect()` takes it (docs/API.md). */
export type ConnectTarget =
  | { command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { url: string; type: RemoteTransportType; headers: Record<string, string>; auth?: AuthOption };
