/**
 * Picks the transport for a `connect()` target (API.md): a command means stdio, a URL means the
 * network transport its scheme or `type` names, and a Transport object is used as it is.
 */
import { ConfigError } from "../jsonrpc/errors.js";
import { StdioTransport, type StdioTarget } from "./stdio.js";
import type { Transport } from "./transport.js";

export interface UrlTarget {
  url: string;
  type?: "streamable-http" | "sse" | "websocket";
  headers?: Record<string, string>;
}

export type Target = StdioTarget | UrlTarget | Transport;

function isTransport(target: Target): target is Transport {
  return typeof (target as Transport).start === "function" && typeof (target as Transport).send === "function";
}

export function createTransport(target: Target): Transport {
  if (target === null || typeof target !== "object") {
    throw new ConfigError(`connect() needs a target: { command }, { url } or a Transport; got ${target === null ? "null" : typeof target}`);
  }
  if (isTransport(target)) return target;
  if ("command" in target && typeof target.command === "string" && target.command !== "") {
    return new StdioTransport(target);
  }
  if ("url" in target) {
    throw new ConfigError(`network transports are not available in this build; cannot connect to ${target.url}`, { field: "url" });
  }
  throw new ConfigError(`connect() target has neither a "command" (stdio) nor a "url"`, { field: "command" });
}
