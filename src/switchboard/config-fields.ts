/**
 * The configuration format as data, and its one source of truth: every field a config may hold, its
 * type and range, where `${VAR}` substitution applies, which kind of server it belongs to, and what it
 * is for. `config-validate.ts` walks these tables; `config.ts` adds the rules that span fields (command
 * vs url, fallbacks, maxMs >= initialMs); the input types (`ServerEntryInput`, `ConfigInput`) are read
 * off them, JSDoc included; `config-schema.ts` makes mcp.schema.json from them. The defaults sit here
 * too, next to the fields they complete.
 */
import { OAUTH_CONFIG_AUTH_METHODS, OAUTH_CONFIG_GRANTS } from "../auth/config.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "../connection/eras/versions.js";
import { fieldTable, functionCheck, type FieldHints } from "./config-validate.js";
import { DEFAULT_SEPARATOR, type FilterableTool } from "./namespacing.js";

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

const BACKOFF_FIELDS = fieldTable({
  /** The delay before the first restart (before jitter), in ms. */
  initialMs: { check: { kind: "integer", min: 0 }, description: "The delay before the first restart (before jitter), in ms." },
  /** The ceiling for any delay, in ms. */
  maxMs: { check: { kind: "integer", min: 0 }, description: "The ceiling for any delay, in ms; at least initialMs (checked by the loader)." },
  /** Growth per attempt (>= 1). */
  factor: { check: { kind: "number", min: 1 }, description: "Growth of the delay per attempt." },
  /** Fraction of the delay that is random, 0..1. */
  jitter: { check: { kind: "number", min: 0, max: 1 }, description: "Fraction of the delay that is random, 0 to 1." },
});

const RESTART_FIELDS = fieldTable({
  /** Restarts allowed within the window; 0 means a failed child is never restarted. */
  maxRestarts: { check: { kind: "integer", min: 0 }, description: "Restarts allowed within withinMs; 0: a failed server is never restarted." },
  /** The window, in ms. */
  withinMs: { check: { kind: "integer", min: 1 }, description: "The window maxRestarts counts in, in ms." },
  backoff: { check: { kind: "object", fields: BACKOFF_FIELDS }, description: "The delay between restarts: grows by factor from initialMs up to maxMs." },
  cooldownMs: {
    check: { kind: "integer", min: 0 },
    description: "Once the restart limit puts the server down, start it again after this many ms. Default: it stays down.",
  },
  healthyAfterMs: {
    check: { kind: "integer", min: 0 },
    description: "The backoff starts afresh once the server has stayed up this long, in ms.",
  },
});

const CIRCUIT_FIELDS = fieldTable({
  /** Consecutive failures that open the circuit (>= 1). */
  failureThreshold: { check: { kind: "integer", min: 1 }, description: "Consecutive failures that open the circuit." },
  /** How long the circuit stays open before a probe is let through, in ms. */
  cooldownMs: { check: { kind: "integer", min: 0 }, description: "How long the circuit stays open before a probe is let through, in ms." },
});

const TOOLS_FIELDS = fieldTable({
  /** Only these tools ("*" matches any run of characters: "read_*"). Omitted: all tools. */
  only: {
    check: { kind: "string-array", nonEmpty: true },
    description: 'Only these tools (the server\'s own names; "*" matches any run of characters: "read_*"). Omitted: all tools.',
  },
  /** Minus these tools (same patterns), applied after `only`. */
  except: { check: { kind: "string-array", nonEmpty: true }, description: "Minus these tools (same patterns), applied after only." },
  /** Replacement descriptions by tool name. */
  descriptions: { check: { kind: "string-map" }, description: "Replacement descriptions by tool name." },
  /** Code only: a last say on each tool that passed `only` and `except`. */
  filter: {
    check: functionCheck<(tool: FilterableTool) => boolean>(),
    description: "Code only: a last say on each tool that passed only and except.",
  },
});

/** The `oauth` object of a remote entry (see src/auth/config.ts); strings take `${VAR}`, so secrets stay out of the file. */
const OAUTH_FIELDS = fieldTable({
  clientId: { check: { kind: "string", nonEmpty: true }, substitute: true, description: "A pre-registered client ID (skips registration)." },
  clientSecret: { check: { kind: "string", nonEmpty: true }, substitute: true, description: "The client secret; keep it in the environment." },
  clientMetadataUrl: {
    check: { kind: "string", nonEmpty: true },
    substitute: true,
    description: "An https URL of this client's metadata document, used as its client ID where the server supports it.",
  },
  clientName: { check: { kind: "string", nonEmpty: true }, substitute: true, description: 'Sent in dynamic registration. Default: "mcp-switchboard".' },
  scope: { check: { kind: "string" }, substitute: true, description: "Scopes to ask for when neither the challenge nor the server's metadata names any." },
  redirectUri: { check: { kind: "string", nonEmpty: true }, substitute: true, description: "Where the authorization server sends the browser back." },
  grant: {
    check: { kind: "enum", values: OAUTH_CONFIG_GRANTS },
    description: '"authorization_code" (default: a user consents) or "client_credentials" (machine to machine).',
  },
  /** PKCS#8 PEM private key for private_key_jwt (use `${VAR}` to keep it out of the file). */
  privateKey: { check: { kind: "string", nonEmpty: true }, substitute: true, description: "PKCS#8 PEM private key for private_key_jwt." },
  signingAlgorithm: { check: { kind: "string", nonEmpty: true }, description: "The private key's algorithm. Default: ES256." },
  tokenEndpointAuthMethod: {
    check: { kind: "enum", values: OAUTH_CONFIG_AUTH_METHODS },
    description: "Force a token endpoint authentication method instead of choosing from what the server supports.",
  },
  applicationType: {
    check: { kind: "enum", values: ["native", "web"] },
    description: "Dynamic registration's application_type. Default: native for loopback redirects, else web.",
  },
  dpop: { check: { kind: "boolean" }, description: "DPoP-bound tokens (RFC 9449). Default: when both servers ask for it." },
  authorizationServer: {
    check: { kind: "string", nonEmpty: true },
    substitute: true,
    description: "Of the authorization servers a resource lists, use this one. Default: the first.",
  },
  /** Where the credentials are kept (default ~/.mcp-switchboard/tokens.json). */
  tokenFile: {
    check: { kind: "string", nonEmpty: true },
    substitute: true,
    description: "Where the credentials are kept, relative to the config file. Default: ~/.mcp-switchboard/tokens.json.",
  },
  /** The port `mcp-switchboard login` receives the callback on (default: a free one). */
  loopbackPort: {
    check: { kind: "integer", min: 0, max: 65_535 },
    description: "The port `mcp-switchboard login` receives the callback on. Default: a free one.",
  },
});

/** A server entry's `fleet` object: limits every process of a fleet shares (see docs/guide/fleet.md). */
const SERVER_FLEET_FIELDS = fieldTable({
  maxConcurrency: { check: { kind: "integer", min: 1 }, description: "Calls in flight to this server across every process of the fleet." },
  ratePerSecond: { check: { kind: "integer", min: 1 }, description: "Calls started per second across every process of the fleet." },
  burst: { check: { kind: "integer", min: 1 }, description: "Calls that may start at once above the rate. Default: ratePerSecond (at least 1)." },
  breakerQuorum: {
    check: { kind: "integer", min: 1 },
    description: "Processes that must see the server failing before its circuit opens fleet-wide. Default: 2.",
  },
});

/** The top-level `fleet` object: the Redis that processes share (see docs/guide/fleet.md). */
const FLEET_FIELDS = fieldTable({
  redis: {
    check: { kind: "string", nonEmpty: true },
    substitute: true,
    description: 'The Redis URL, e.g. "${REDIS_URL}" (redis://, rediss:// or unix:/path).',
  },
  prefix: {
    check: { kind: "string", nonEmpty: true },
    substitute: true,
    description: 'Key prefix: processes with the same Redis and prefix form one fleet. Default: "mcpsb".',
  },
});

export const SERVER_FIELDS = fieldTable({
  /** stdio: the program to run. */
  command: { check: { kind: "string", nonEmpty: true }, substitute: true, appliesTo: "stdio", description: "stdio: the program to run." },
  args: { check: { kind: "string-array" }, substitute: true, appliesTo: "stdio", description: "stdio: the program's arguments." },
  env: {
    check: { kind: "string-map" },
    substitute: true,
    appliesTo: "stdio",
    description: "stdio: environment variables for the program, added to the minimal environment it inherits (PATH, HOME and the like).",
  },
  /** Relative paths are resolved against the config file's directory. */
  cwd: {
    check: { kind: "string", nonEmpty: true },
    substitute: true,
    appliesTo: "stdio",
    description: "stdio: the working directory; relative paths are resolved against the config file's directory.",
  },
  /** Remote: the server's URL (http(s):// or ws(s)://). */
  url: {
    check: { kind: "string", nonEmpty: true },
    substitute: true,
    appliesTo: "remote",
    description: "Remote: the server's absolute http://, https://, ws:// or wss:// URL (checked by the loader after substitution).",
  },
  /** "stdio" is accepted on stdio entries (some clients write it); "http" means "streamable-http". */
  type: {
    check: { kind: "enum", values: ["stdio", ...REMOTE_TYPES] },
    description:
      'The transport. "stdio" is accepted on stdio entries; "http" means "streamable-http". Without it, a URL gets "websocket" for ws:// and wss://, else "streamable-http" (the loader also checks that a ws:// URL has "websocket").',
  },
  headers: {
    check: { kind: "string-map" },
    substitute: true,
    appliesTo: "remote",
    description: "Remote: HTTP headers sent with every request (and the WebSocket handshake).",
  },
  disabled: { check: { kind: "boolean" }, description: "A disabled server is not started, and needs none of its variables set. Default: false." },
  fallbacks: {
    check: { kind: "string-array", nonEmpty: true },
    description:
      "Other servers to try, in order, when this one cannot take a call; not transitive. Each must name another server of this file (checked by the loader).",
  },
  restart: { check: { kind: "object", fields: RESTART_FIELDS }, description: "When and how fast a server that exits or fails is started again." },
  requestTimeoutMs: { check: { kind: "integer", min: 1 }, description: "Each request's deadline, in ms." },
  /** Each start (spawn or connect, and the handshake) must finish within this; default: the board's `startTimeoutMs`. */
  startTimeoutMs: {
    check: { kind: "integer", min: 1 },
    description: "Each start (spawn or connect, and the handshake) must finish within this many ms. Default: the board's (30000).",
  },
  maxConcurrency: {
    check: { kind: "integer", min: 1, allowInfinity: true },
    description: "Requests in flight at once to this server. Default: no limit.",
  },
  maxQueue: {
    check: { kind: "integer", min: 0, allowInfinity: true },
    description: "Requests waiting for a slot when maxConcurrency is reached.",
  },
  tools: { check: { kind: "object", fields: TOOLS_FIELDS }, description: "Which of the server's tools to expose, and their descriptions." },
  circuit: { check: { kind: "object", fields: CIRCUIT_FIELDS }, description: "The circuit breaker: stop sending calls to a failing server for a while." },
  /** `"auto"` (default), `"legacy"` (the 2025 era, no probe), or a pinned version such as `"2026-07-28"`. */
  protocol: {
    check: { kind: "string", nonEmpty: true },
    oneOf: ["auto", "legacy", ...SUPPORTED_PROTOCOL_VERSIONS],
    description: '"auto" (default), "legacy" (the 2025 era, no probe), or a pinned protocol version this client speaks.',
  },
  /** 2026 era: open a subscriptions/listen for the server's list changes by itself (default true). */
  autoListen: {
    check: { kind: "boolean" },
    description: "2026 era: keep a subscriptions/listen open for the server's list changes. Default: true.",
  },
  /** Not started by `board.start()`: its first call starts it; its tools come from the catalog file meanwhile. */
  lazy: {
    check: { kind: "boolean" },
    description: "Not started by start(): the first call starts it; until then its tools come from the board's catalogFile. Default: false.",
  },
  /** A started lazy server stops after this many ms without calls (unset: it keeps running). */
  idleMs: { check: { kind: "integer", min: 1 }, description: "A lazy server stops after this many ms without calls. Default: it keeps running." },
  /** The largest message the server may send, in bytes (default 16 MiB). */
  maxMessageBytes: { check: { kind: "integer", min: 1 }, description: "The largest message the server may send, in bytes. Default: 16777216 (16 MiB)." },
  /** The most of one result of this server's tools that reaches a model through the runners (the board's otherwise). */
  maxResultChars: {
    check: { kind: "integer", min: 1 },
    description:
      "The most of one tool result that reaches a model through the runners and runAgent, in characters (images by bytes). Default: the board's, else no limit.",
  },
  /** Remote: OAuth 2.1 for this server, credentials in a token file (see README, Authorization). */
  oauth: {
    check: { kind: "object", fields: OAUTH_FIELDS },
    appliesTo: "remote",
    description: "Remote: OAuth 2.1 for this server, credentials in a token file ({} is enough for a server that registers clients).",
  },
  /** stdio: every principal may use the one process (a principal's call to it is refused otherwise). */
  shared: {
    check: { kind: "boolean" },
    description:
      "Principals: every principal may use this server's one connection (stdio has no per-principal credentials; without it a principal's call is refused). Default: false.",
  },
  /** Remote, code only: the headers of one principal's requests (principals.ts). */
  principalHeaders: {
    check: functionCheck<(principal: string) => Record<string, string> | Promise<Record<string, string>>>(),
    appliesTo: "remote",
    description: "Remote, code only: (principal) => headers for that principal's requests (its own token).",
  },
  /** Remote, code only: `oauth({...})`, `{ token }` or a function returning headers. */
  auth: { check: { kind: "auth" }, appliesTo: "remote", description: "Remote, code only: oauth({...}), { token } or a function returning headers." },
  /** Limits shared by every process of the board's fleet (needs a top-level `fleet` or a `fleet` board option). */
  fleet: {
    check: { kind: "object", fields: SERVER_FLEET_FIELDS },
    description: "Limits and breaker decisions shared by every process of the fleet (needs a fleet: the top-level fleet object).",
  },
});

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

/** One of VS Code's `inputs`: a value asked for once and used as `${input:id}` (config-hosts.ts). */
const INPUT_FIELDS = fieldTable({
  id: { check: { kind: "string", nonEmpty: true }, description: "The name used in ${input:id}." },
  type: {
    check: { kind: "enum", values: ["promptString", "pickString"] },
    description: 'How VS Code asks for it: "promptString" (a text box) or "pickString" (one of options).',
  },
  description: { check: { kind: "string" }, description: "What to ask the person for." },
  password: { check: { kind: "boolean" }, description: "The value is a secret: never shown." },
  default: { check: { kind: "string" }, description: "The value when none is given." },
  options: { check: { kind: "string-array" }, description: "pickString: the values to pick from." },
});

/** The top-level `gateway` object: how `mcp-switchboard serve` serves the board (docs/guide/gateway.md). */
const GATEWAY_FIELDS = fieldTable({
  port: { check: { kind: "integer", min: 0, max: 65535 }, description: "The port to listen on. Default: 0 (a free port, printed at start)." },
  host: { check: { kind: "string", nonEmpty: true }, description: 'The address to listen on. Default: "127.0.0.1".' },
  path: { check: { kind: "string", nonEmpty: true }, description: 'The MCP endpoint\'s path. Default: "/mcp".' },
  maxBodyBytes: { check: { kind: "integer", min: 1 }, description: "The largest request body; a larger one gets 413. Default: 4194304." },
  maxSessions: {
    check: { kind: "integer", min: 1 },
    description: "Sessions held at once, and 2026 listens open; an initialize or listen beyond it gets 503. Default: 10000.",
  },
  maxInFlightPerSession: { check: { kind: "integer", min: 1 }, description: "Requests one session may have running; beyond it, 429. Default: 64." },
  sessionIdleMs: { check: { kind: "integer", min: 1 }, description: "A session without requests or an open stream this long is closed. Default: 1800000." },
  maxUnreadBytes: { check: { kind: "integer", min: 1 }, description: "Bytes a client may leave unread on one event stream. Default: 4194304." },
  qualifyNames: {
    check: { kind: "boolean" },
    description: "False: a board of one server is served under that server's own tool and prompt names, as if clients spoke to it. Default: true.",
  },
  auth: {
    check: {
      kind: "object",
      fields: fieldTable({
        keys: {
          check: { kind: "string-map" },
          substitute: true,
          description: 'API keys by principal, each a bearer token: { "ada": "${ADA_GATEWAY_KEY}" }.',
        },
        jwt: {
          check: {
            kind: "object",
            fields: fieldTable({
              issuer: { check: { kind: "string", nonEmpty: true }, substitute: true, description: "The tokens' issuer (iss)." },
              audience: { check: { kind: "string", nonEmpty: true }, substitute: true, description: "The tokens' audience (aud): this gateway." },
              jwksUrl: {
                check: { kind: "string", nonEmpty: true },
                substitute: true,
                description: "Where the signing keys are. Default: <issuer>/.well-known/jwks.json.",
              },
              principalClaim: { check: { kind: "string", nonEmpty: true }, description: 'The claim naming the principal. Default: "sub".' },
            }),
          },
          description: "Bearer tokens are JWTs, checked against the issuer's keys.",
        },
      }),
    },
    description: "Who may call the gateway: keys or jwt (one of them). Without it, anyone who can reach the port.",
  },
});

/** The server maps are checked for shape here; config.ts walks them entry by entry. */
export const TOP_LEVEL_FIELDS = fieldTable({
  /** The usual key. */
  mcpServers: {
    check: { kind: "server-map", fields: SERVER_FIELDS },
    description: "The servers, by name. Give exactly one of mcpServers, servers and services.",
  },
  /** The same, as VS Code and `new Switchboard({ servers })` spell it. */
  servers: { check: { kind: "server-map", fields: SERVER_FIELDS }, description: "The same as mcpServers, as VS Code spells it." },
  /** The same, legacy name. */
  services: { check: { kind: "server-map", fields: SERVER_FIELDS }, description: "The same as mcpServers, the legacy name." },
  /** Between server and tool in qualified names. Default: "__". */
  separator: {
    check: { kind: "string", nonEmpty: true },
    description: "Between server and tool in qualified names. Server names must not contain it, nor end with a part of it.",
  },
  /** Share credentials, limits, breakers and lists with other processes through Redis. */
  fleet: {
    check: { kind: "object", fields: FLEET_FIELDS },
    description: "Share credentials, limits, breaker decisions and lists with other processes through Redis.",
  },
  /** `mcp-switchboard serve`: the board served as one MCP server. */
  gateway: {
    check: { kind: "object", fields: GATEWAY_FIELDS },
    description: "How `mcp-switchboard serve` serves the board as one MCP server: address, limits, auth.",
  },
  /** VS Code: values asked for once, used in server entries as `${input:id}` (from a handler, else MCP_INPUT_<ID>). */
  inputs: {
    check: { kind: "object-array", fields: INPUT_FIELDS },
    description:
      "VS Code: values asked for once and used as ${input:id} in the servers' strings. Without an inputs handler (loadConfig's option), the value comes from the environment variable MCP_INPUT_<ID> (the id upper-cased, other characters as _).",
  },
  /** An unset ${VAR} rejects the whole config; by default it fails only the server that needs it. */
  strictEnv: {
    check: { kind: "boolean" },
    description:
      "true: a ${VAR} whose variable is not set rejects the whole config. Default false: the server that needs it is down, with a reason naming the variable, and the others start.",
  },
  /** Ignored; lets editors find a JSON schema. */
  $schema: { check: { kind: "string" }, description: "Ignored by the loader; lets editors find this schema." },
});
