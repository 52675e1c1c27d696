/**
 * The shapes of a Switchboard configuration: what users write (`ConfigInput`, `ServerEntryInput`, the
 * `mcpServers` JSON of Claude Desktop, Cursor, VS Code and friends, plus our extensions) and what
 * `loadConfig` returns (`SwitchboardConfig`: validated, variables substituted, defaults filled in).
 */
import type { OAuthConfig } from "../auth/config.js";
import type { BackoffPolicy } from "../supervisor/backoff.js";
import type { AuthOption } from "../transports/auth.js";
import type { CircuitPolicy } from "../supervisor/circuit-breaker.js";
import type { RestartIntensityLimit } from "../supervisor/restart-intensity.js";
import type { ToolFilter } from "./namespacing.js";

export type RemoteTransportType = "streamable-http" | "sse" | "websocket";
export type TransportType = "stdio" | RemoteTransportType;

// ---------------------------------------------------------------------------------------------------
// Input: what users write. Every field optional here; `loadConfig` says which combinations are valid.
// ---------------------------------------------------------------------------------------------------

export interface ServerEntryInput {
  /** stdio: the program to run. */
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Relative paths are resolved against the config file's directory. */
  cwd?: string;
  /** Remote: the server's URL (http(s):// or ws(s)://). */
  url?: string;
  /** "stdio" is accepted on stdio entries (some clients write it); "http" means "streamable-http". */
  type?: TransportType | "http";
  headers?: Record<string, string>;
  /** Remote: OAuth 2.1 for this server, credentials in a token file (see README, Authorization). */
  oauth?: OAuthConfig;
  /** Remote, code only: `oauth({...})`, `{ token }` or a function returning headers. */
  auth?: AuthOption;
  disabled?: boolean;
  fallbacks?: string[];
  restart?: RestartPolicyInput;
  requestTimeoutMs?: number;
  /** Each start (spawn or connect, and the handshake) must finish within this; default: the board's `startTimeoutMs`. */
  startTimeoutMs?: number;
  maxConcurrency?: number;
  maxQueue?: number;
  tools?: ToolFilter;
  circuit?: Partial<CircuitPolicy>;
  /** `"auto"` (default), `"legacy"` (the 2025 era, no probe), or a pinned version such as `"2026-07-28"`. */
  protocol?: string;
  /** 2026 era: open a subscriptions/listen for the server's list changes by itself (default true). */
  autoListen?: boolean;
  /** The largest message the server may send, in bytes (default 16 MiB). */
  maxMessageBytes?: number;
}

export interface RestartPolicyInput extends Partial<RestartIntensityLimit> {
  backoff?: Partial<BackoffPolicy>;
  cooldownMs?: number;
  healthyAfterMs?: number;
}

export interface ConfigInput {
  /** The usual key. */
  mcpServers?: Record<string, ServerEntryInput>;
  /** The same, as VS Code and `new Switchboard({ servers })` spell it. */
  servers?: Record<string, ServerEntryInput>;
  /** The same, legacy name. */
  services?: Record<string, ServerEntryInput>;
  /** Between server and tool in qualified names. Default "__". */
  separator?: string;
  /** Ignored; lets editors find a JSON schema. */
  $schema?: string;
}

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
}

/** The connection target of an entry, as `connect()` takes it (docs/API.md). */
export type ConnectTarget =
  | { command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { url: string; type: RemoteTransportType; headers: Record<string, string>; auth?: AuthOption };
