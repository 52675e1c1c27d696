/**
 * Picks the transport for a `connect()` target (docs/API.md): a command means stdio; a URL means WebSocket
 * for ws:// and wss://, Streamable HTTP otherwise, unless `type` says which; a Transport object is used
 * as it is.
 */
import { ConfigError } from "../jsonrpc/errors.js";
import { LegacySseTransport } from "./legacy-sse.js";
import { StdioTransport, type StdioTarget } from "./stdio.js";
import type { AuthOption } from "./auth.js";
import { StreamableHttpTransport } from "./streamable-http.js";
import type { Transport } from "./transport.js";
import { WebSocketTransport } from "./websocket.js";
import { isAuthProvider } from "../auth/provider.js";
import type { UrlPolicy } from "../auth/url-policy.js";

export interface UrlTarget {
  url: string;
  /** `"http"` is an alias of `"streamable-http"`. */
  type?: "streamable-http" | "http" | "sse" | "websocket" | undefined;
  headers?: Record<string, string> | undefined;
  /** A bearer token, or a function returning auth headers (HTTP: called per request; WebSocket: per handshake). */
  auth?: AuthOption | undefined;
  /** Streamable HTTP: connections to the server's origin (default 64; a Switchboard entry's maxConcurrency when finite). */
  connections?: number | undefined;
}

export type Target = StdioTarget | UrlTarget | Transport;

function isTransport(target: Target): target is Transport {
  return typeof (target as Transport).start === "function" && typeof (target as Transport).send === "function";
}

/** Settings every transport built from a target takes. */
export interface TransportSettings {
  /** The largest message the server may send (bytes, default 16 MiB). See message-limit.ts. */
  maxMessageBytes?: number | undefined;
  /** Which URLs the transport (and its OAuth provider) may fetch (auth/url-policy.ts). */
  urlPolicy?: UrlPolicy | undefined;
}

export function createTransport(target: Target, settings: TransportSettings = {}): Transport {
  const { maxMessageBytes, urlPolicy } = settings;
  if (target === null || typeof target !== "object") {
    throw new ConfigError(`connect() needs a target: { command }, { url } or a Transport; got ${target === null ? "null" : typeof target}`);
  }
  if (isTransport(target)) return target;
  if ("command" in target && typeof target.command === "string" && target.command !== "") {
    return new StdioTransport({ ...target, maxMessageBytes });
  }
  if ("url" in target && typeof target.url === "string") {
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      throw new ConfigError(`"${target.url}" is not a valid URL`, { field: "url" });
    }
    if (urlPolicy && isAuthProvider(target.auth)) target.auth.useUrlPolicy?.(urlPolicy);
    const websocketScheme = url.protocol === "ws:" || url.protocol === "wss:";
    const type = target.type ?? (websocketScheme ? "websocket" : "streamable-http");
    if (type === "websocket") {
      if (!websocketScheme) throw new ConfigError(`type "websocket" needs a ws:// or wss:// URL, got ${target.url}`, { field: "url" });
      return new WebSocketTransport({ url, headers: target.headers, auth: target.auth, maxMessageBytes, urlPolicy });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new ConfigError(`type "${type}" needs an http:// or https:// URL, got ${target.url}`, { field: "url" });
    }
    const http = { url, headers: target.headers, auth: target.auth, maxMessageBytes, urlPolicy };
    if (type === "sse") return new LegacySseTransport(http);
    const { connections } = target;
    if (connections !== undefined && !(Number.isInteger(connections) && connections >= 1)) {
      throw new ConfigError(`"connections" must be a whole number of at least 1, got ${connections}`, { field: "connections" });
    }
    if (type === "streamable-http" || type === "http") return new StreamableHttpTransport({ ...http, maxSockets: target.connections });
    throw new ConfigError(`unknown transport type "${String(type)}"; use "streamable-http", "sse" or "websocket"`, { field: "type" });
  }
  throw new ConfigError(`connect() target has neither a "command" (stdio) nor a "url"`, { field: "command" });
}
