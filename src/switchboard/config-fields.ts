/**
 * The configuration format as data: every field a config may hold, its type and range, where `${VAR}`
 * substitution applies, and which kind of server it belongs to. `config-validate.ts` walks these
 * tables; `config.ts` adds the rules that span fields (command vs url, fallbacks, maxMs >= initialMs).
 * The defaults sit here too, next to the fields they complete.
 */
import { OAUTH_CONFIG_AUTH_METHODS, OAUTH_CONFIG_GRANTS } from "../auth/config.js";
import type { FieldHints, FieldTable } from "./config-validate.js";
import { DEFAULT_SEPARATOR } from "./namespacing.js";

export const CONFIG_DEFAULTS = {
  separator: DEFAULT_SEPARATOR,
  requestTimeoutMs: 60_000,
  /** No limit: MCP servers take concurrent requests; set it for servers that do not cope. */
  maxConcurrency: Infinity,
  /** Only matters with a finite maxConcurrency. */
  maxQueue: 1000,
  restart: {
    maxRestarts: 5,
    withinMs: 60_000,
    backoff: { initialMs: 100, maxMs: 30_000, factor: 2, jitter: 0.2 },
    /** The backoff starts afresh once a server has stayed up this long. */
    healthyAfterMs: 10_000,
  },
  circuit: { failureThreshold: 5, cooldownMs: 10_000 },
} as const;

export const REMOTE_TYPES = ["streamable-http", "http", "sse", "websocket"] as const;

const BACKOFF_FIELDS: FieldTable = {
  initialMs: { check: { kind: "integer", min: 0 } },
  maxMs: { check: { kind: "integer", min: 0 } },
  factor: { check: { kind: "number", min: 1 } },
  jitter: { check: { kind: "number", min: 0, max: 1 } },
};

const RESTART_FIELDS: FieldTable = {
  maxRestarts: { check: { kind: "integer", min: 0 } },
  withinMs: { check: { kind: "integer", min: 1 } },
  backoff: { check: { kind: "object", fields: BACKOFF_FIELDS } },
  cooldownMs: { check: { kind: "integer", min: 0 } },
  healthyAfterMs: { check: { kind: "integer", min: 0 } },
};

const CIRCUIT_FIELDS: FieldTable = {
  failureThreshold: { check: { kind: "integer", min: 1 } },
  cooldownMs: { check: { kind: "integer", min: 0 } },
};

const TOOLS_FIELDS: FieldTable = {
  only: { check: { kind: "string-array", nonEmpty: true } },
  except: { check: { kind: "string-array", nonEmpty: true } },
  descriptions: { check: { kind: "string-map" } },
  /** Code only (a predicate); a JSON file cannot hold one. */
  filter: { check: { kind: "function" } },
};

/** The `oauth` object of a remote entry (see src/auth/config.ts); strings take `${VAR}`, so secrets stay out of the file. */
const OAUTH_FIELDS: FieldTable = {
  clientId: { check: { kind: "string", nonEmpty: true }, substitute: true },
  clientSecret: { check: { kind: "string", nonEmpty: true }, substitute: true },
  clientMetadataUrl: { check: { kind: "string", nonEmpty: true }, substitute: true },
  clientName: { check: { kind: "string", nonEmpty: true }, substitute: true },
  scope: { check: { kind: "string" }, substitute: true },
  redirectUri: { check: { kind: "string", nonEmpty: true }, substitute: true },
  grant: { check: { kind: "enum", values: OAUTH_CONFIG_GRANTS } },
  privateKey: { check: { kind: "string", nonEmpty: true }, substitute: true },
  signingAlgorithm: { check: { kind: "string", nonEmpty: true } },
  tokenEndpointAuthMethod: { check: { kind: "enum", values: OAUTH_CONFIG_AUTH_METHODS } },
  applicationType: { check: { kind: "enum", values: ["native", "web"] } },
  dpop: { check: { kind: "boolean" } },
  authorizationServer: { check: { kind: "string", nonEmpty: true }, substitute: true },
  tokenFile: { check: { kind: "string", nonEmpty: true }, substitute: true },
  loopbackPort: { check: { kind: "integer", min: 0, max: 65_535 } },
};

export const SERVER_FIELDS: FieldTable = {
  command: { check: { kind: "string", nonEmpty: true }, substitute: true, appliesTo: "stdio" },
  args: { check: { kind: "string-array" }, substitute: true, appliesTo: "stdio" },
  env: { check: { kind: "string-map" }, substitute: true, appliesTo: "stdio" },
  cwd: { check: { kind: "string", nonEmpty: true }, substitute: true, appliesTo: "stdio" },
  url: { check: { kind: "string", nonEmpty: true }, substitute: true, appliesTo: "remote" },
  type: { check: { kind: "enum", values: ["stdio", ...REMOTE_TYPES] } },
  headers: { check: { kind: "string-map" }, substitute: true, appliesTo: "remote" },
  disabled: { check: { kind: "boolean" } },
  fallbacks: { check: { kind: "string-array", nonEmpty: true } },
  restart: { check: { kind: "object", fields: RESTART_FIELDS } },
  requestTimeoutMs: { check: { kind: "integer", min: 1 } },
  startTimeoutMs: { check: { kind: "integer", min: 1 } },
  maxConcurrency: { check: { kind: "integer", min: 1, allowInfinity: true } },
  maxQueue: { check: { kind: "integer", min: 0, allowInfinity: true } },
  tools: { check: { kind: "object", fields: TOOLS_FIELDS } },
  circuit: { check: { kind: "object", fields: CIRCUIT_FIELDS } },
  protocol: { check: { kind: "string", nonEmpty: true } },
  autoListen: { check: { kind: "boolean" } },
  maxMessageBytes: { check: { kind: "integer", min: 1 } },
  oauth: { check: { kind: "object", fields: OAUTH_FIELDS }, appliesTo: "remote" },
  /** Code only: `oauth()`, `{ token }` or a header function. */
  auth: { check: { kind: "auth" }, appliesTo: "remote" },
};

/**
 * Fields people write on a server entry that live elsewhere in this format. Tool filters are only
 * accepted under "tools" (one place, one spelling), and these hints point there.
 */
export const SERVER_HINTS: FieldHints = {
  only: "tools.only",
  except: "tools.except",
  descriptions: "tools.descriptions",
  filter: "tools.filter",
  backoff: "restart.backoff",
  maxRestarts: "restart.maxRestarts",
  withinMs: "restart.withinMs",
  failureThreshold: "circuit.failureThreshold",
  timeout: "requestTimeoutMs",
  timeoutMs: "requestTimeoutMs",
  healthyAfterMs: "restart.healthyAfterMs",
  concurrency: "maxConcurrency",
  transport: "type",
  transportType: "type",
  environment: "env",
  protocolVersion: "protocol",
  era: "protocol",
  authorization: "oauth",
  oauth2: "oauth",
};

/** The keys that hold the server map; exactly one may be given. */
export const SERVER_MAP_KEYS = ["mcpServers", "servers", "services"] as const;

/** The server maps are listed for the unknown-field check; config.ts walks them entry by entry. */
export const TOP_LEVEL_FIELDS: FieldTable = {
  mcpServers: { check: { kind: "object", fields: {} } },
  servers: { check: { kind: "object", fields: {} } },
  services: { check: { kind: "object", fields: {} } },
  separator: { check: { kind: "string", nonEmpty: true } },
  $schema: { check: { kind: "string" } },
};
