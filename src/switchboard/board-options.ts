/**
 * What `new Switchboard(...)` takes and what `status()` gives, and how entries written in code become a
 * checked configuration.
 */
import type { CallToolOptions } from "../client/client.js";
import type { ClientOptions } from "../client/options.js";
import { UrlPolicy, type UrlPolicyOptions } from "../auth/url-policy.js";
import type { EmbedFunction } from "../catalog/embedding-index.js";
import { ConfigError } from "../jsonrpc/errors.js";
import type { Transport } from "../transports/transport.js";
import { parseConfig, type LoadConfigOptions } from "./config.js";
import type { ServerEntryInput, SwitchboardConfig } from "./config-types.js";
import type { SwitchboardHooks } from "./hooks.js";
import type { BoardFleet } from "./fleet-seam.js";
import type { WhileRestarting } from "./router.js";
import type { ServerState } from "./server-runtime.js";
import type { PinToolsOption } from "./tool-pins.js";
import type { PrincipalSettings } from "./principals.js";

/** A server written in code: a config entry, or a transport factory in place of `command`/`url`. */
export type ServerInit = ServerEntryInput & {
  /** Builds the transport for each (re)start (e.g. a memory pair, or a custom transport). */
  transport?: (() => Transport) | undefined;
  /** Client options for this server: handlers, protocol, ... */
  client?: ClientOptions | undefined;
};

export interface SwitchboardInit {
  servers: Record<string, ServerInit>;
  /** Between server and tool names (default "__"). */
  separator?: string | undefined;
  /** Client options for every server (a server's own `client` wins). */
  client?: ClientOptions | undefined;
  hooks?: SwitchboardHooks | undefined;
  /**
   * A call for a server that is restarting: `"fallback"` (default) goes to the next server in its
   * fallback list at once, waiting only at the last one; `"wait"` waits (up to the call's timeout) for
   * each server in turn.
   */
  whileRestarting?: WhileRestarting | undefined;
  /**
   * Each server's start (spawn or connect, and the handshake) must finish within this many ms, or it
   * is restarted; a server's own `startTimeoutMs` wins. The handshake's requests have this deadline,
   * not `requestTimeoutMs`. `start()` resolves when every server is up, down, or has failed a start,
   * or after this long. Default 30000.
   */
  startTimeoutMs?: number | undefined;
  /**
   * Quarantine a tool whose definition changes after it was first seen (a "rug pull") until
   * `approveToolChange(name)`; `{ file }` keeps the pins across restarts (tool-pins.ts).
   */
  pinTools?: PinToolsOption | undefined;
  /**
   * The most of one tool result that reaches a model through the runners and `runAgent` (a server's
   * own `maxResultChars` wins); `callTool` itself still returns the whole result. Default: no limit.
   */
  maxResultChars?: number | undefined;
  /**
   * Which URLs the servers may make the client fetch: server URLs, redirects, legacy SSE endpoints,
   * OAuth metadata and endpoints, checked after DNS and before connecting (auth/url-policy.ts). Unset: the
   * defaults (loopback allowed; link-local and cloud metadata refused; private ranges refused for URLs
   * that came from a server).
   */
  urlPolicy?: UrlPolicyOptions | undefined;
  /** Per-principal clients of remote servers: how many per server, how long idle (principals.ts). */
  principals?: PrincipalSettings | undefined;
  /**
   * Share credentials, limits, breaker decisions and lists with other processes: `redisFleet(...)`
   * from "mcp-switchboard/fleet". `fromConfig` builds one from the config's `fleet` when this is unset.
   */
  fleet?: BoardFleet | undefined;
  /**
   * A JSON file that keeps every server's tool list as last seen (written atomically after each
   * listing), so lazy servers' tools are known without starting them.
   */
  catalogFile?: string | undefined;
  /**
   * Your own embedding function, `(texts) => Promise<vectors>`: `searchTools` then fuses the full-text
   * ranking with the nearest tools by meaning (reciprocal rank fusion). Each tool is embedded once.
   */
  embed?: EmbedFunction | undefined;
}

export interface BoardCallOptions extends CallToolOptions {
  /** The call may safely run twice (overrides the tool's annotations) for fallback decisions. */
  idempotent?: boolean | undefined;
  /** Read by the runners and `runAgent` (from their `callOptions`): this call's result budget for the model. */
  maxResultChars?: number | undefined;
  /** Whose credentials the call uses (principals.ts); the call then goes on that principal's own client. */
  principal?: string | undefined;
  /** Told when the call moves to a fallback server (as the board's `fallback` event, but for this call alone). */
  onFallback?: ((from: string, to: string, reason: string) => void) | undefined;
}

export interface ServerStatus {
  state: ServerState;
  restarts: number;
  lastError: string | undefined;
  downReason: string | undefined;
  /** Calls sent to the server and not answered yet. */
  inFlight: number;
  /** Calls waiting for this process's own `maxConcurrency`. */
  queued: number;
  /** Calls waiting for the fleet: a permit, a rate-limit slot or the end of a pause (0 without a fleet gate). */
  waiting: number;
  /** The fleet paused the server (a 429 or 503 with Retry-After, here or at another member). */
  paused: boolean;
  /** The entry's fleet-wide `maxConcurrency` (undefined: none). */
  fleetLimit: number | undefined;
  /** This process's breaker, or the fleet's when the fleet opened it. */
  circuit: "closed" | "open" | "half-open";
  protocolVersion: string | undefined;
  fallbacks: string[];
}

export type FromConfigOptions = LoadConfigOptions & Omit<SwitchboardInit, "servers" | "separator">;

export const DEFAULT_START_TIMEOUT_MS = 30_000;

/** The client options every server starts from: the board's, with one URL policy for all (checked here). */
export function clientDefaults(settings: Omit<SwitchboardInit, "servers">): ClientOptions & { urlPolicy: UrlPolicy } {
  const given = settings.urlPolicy !== undefined ? new UrlPolicy(settings.urlPolicy) : settings.client?.urlPolicy;
  return { ...settings.client, urlPolicy: given instanceof UrlPolicy ? given : new UrlPolicy(given ?? {}) };
}

/** Code entries may carry a transport factory instead of command/url; validation sees a stand-in. */
export function normalise(init: SwitchboardInit): SwitchboardConfig {
  const servers: Record<string, ServerEntryInput> = {};
  for (const [name, entry] of Object.entries(init.servers)) {
    const { transport, client, ...rest } = entry;
    if (transport !== undefined && typeof transport !== "function") {
      throw new ConfigError("expected a function that returns a Transport", { server: name, field: "transport" });
    }
    // A transport factory replaces the target: validate the rest of the entry as if it were stdio.
    servers[name] = transport && rest.command === undefined && rest.url === undefined ? { ...rest, command: "(transport factory)" } : rest;
  }
  const options: LoadConfigOptions = { file: "new Switchboard()" };
  return parseConfig({ servers, ...(init.separator !== undefined ? { separator: init.separator } : {}) }, options);
}
