/**
 * The client options checked by type before anything runs: a wrong type (`telemetry: true`,
 * `requestTimeoutMs: "5s"`) is a ConfigError naming the field and what it takes, not a TypeError from
 * deep inside a connection later. Only the shape is checked here; ranges stay with their users. The
 * fields are those of ClientOptions (options.ts).
 */
import { ConfigError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";

type Kind = "boolean" | "number" | "function" | "string" | "object" | "array" | "instrumentation";

const KINDS: Record<string, Kind> = {
  clientInfo: "object",
  capabilities: "object",
  requestTimeoutMs: "number",
  protocol: "string",
  probeTimeoutMs: "number",
  tasks: "boolean",
  onSampling: "function",
  onElicitation: "function",
  onRoots: "function",
  roots: "array",
  enforceCapabilities: "boolean",
  cache: "boolean",
  validateStructuredContent: "boolean",
  autoListen: "boolean",
  maxQueuedRequests: "number",
  maxMessageBytes: "number",
  telemetry: "instrumentation",
};

const WHAT: Record<Kind, string> = {
  boolean: "true or false",
  number: "a number",
  function: "a function",
  string: "a string",
  object: "an object",
  array: "an array",
  instrumentation: "an Instrumentation (an object with observe(), e.g. otelInstrumentation() from mcp-switchboard/telemetry)",
};

function fits(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case "number":
      return typeof value === "number" && !Number.isNaN(value);
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "instrumentation":
      return isObject(value) && typeof value.observe === "function";
    default:
      return typeof value === kind;
  }
}

/** Throws a ConfigError for the first option of the wrong type; `prefix` names where it was given (`client.`). */
export function checkClientOptions(options: unknown, prefix = "", server?: string): void {
  if (options === undefined) return;
  if (!isObject(options))
    throw new ConfigError(`expected an object of client options, found ${typeof options}`, { field: prefix.replace(/\.$/, "") || "options", server });
  for (const [field, kind] of Object.entries(KINDS)) {
    const value = options[field];
    if (value === undefined || fits(value, kind)) continue;
    const found = value === null ? "null" : Array.isArray(value) ? "an array" : `${typeof value} ${JSON.stringify(value)?.slice(0, 40) ?? ""}`.trim();
    throw new ConfigError(`expected ${WHAT[kind]}, found ${found}`, { field: `${prefix}${field}`, ...(server !== undefined ? { server } : {}) });
  }
}
