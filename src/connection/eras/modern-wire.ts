/**
 * The 2026-07-28 era's wire vocabulary: the `_meta` envelope every request carries, and the HTTP header
 * values (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`) with their `=?base64?...?=` encoding.
 */
import { isObject } from "../../util/guards.js";
import type { Implementation, Params } from "./dialect.js";

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_LOG_LEVEL = "io.modelcontextprotocol/logLevel";
export const META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export type Envelope = Readonly<Record<string, unknown>>;

export function buildEnvelope(version: string, capabilities: Record<string, unknown>, clientInfo: Implementation, logLevel?: string): Envelope {
  const envelope: Record<string, unknown> = {
    [META_PROTOCOL_VERSION]: version,
    [META_CLIENT_CAPABILITIES]: capabilities,
    [META_CLIENT_INFO]: clientInfo,
  };
  if (logLevel !== undefined) envelope[META_LOG_LEVEL] = logLevel;
  return Object.freeze(envelope);
}

/**
 * `params` with the envelope in `_meta`; keys the caller put in `_meta` win. `params` is always present
 * in this era (the envelope is required), even for methods without arguments. The envelope object is
 * shared, never copied, when the caller sent no `_meta` of its own.
 */
export function withEnvelope(params: Params | undefined, envelope: Envelope): Params {
  if (params === undefined) return { _meta: envelope };
  const meta = params._meta as Record<string, unknown> | undefined;
  return { ...params, _meta: meta === undefined ? envelope : { ...envelope, ...meta } };
}

/** What `Mcp-Name` carries for a method, if anything. */
export function mcpNameOf(method: string, params: Params | undefined): string | undefined {
  if (params === undefined) return undefined;
  switch (method) {
    case "tools/call":
    case "prompts/get":
      return typeof params.name === "string" ? params.name : undefined;
    case "resources/read":
      return typeof params.uri === "string" ? params.uri : undefined;
    case "tasks/get":
    case "tasks/update":
    case "tasks/cancel":
      return typeof params.taskId === "string" ? params.taskId : undefined;
    default:
      return undefined;
  }
}

// Visible ASCII and tab, no leading or trailing whitespace. Everything else is base64-wrapped, as is a
// plain value that already looks wrapped (it would be decoded on the other side), and the empty string.
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;
const WRAPPED = /^=\?base64\?.*\?=$/i;

export function encodeHeaderValue(value: string): string {
  if (PLAIN.test(value) && !WRAPPED.test(value)) return value;
  return `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** Capabilities plus the tasks extension (declared per request, like every capability in this era). */
export function withTasks(capabilities: Record<string, unknown>): Record<string, unknown> {
  const extensions = isObject(capabilities.extensions) ? capabilities.extensions : {};
  return { ...capabilities, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}
