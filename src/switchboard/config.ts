/**
 * Loading a Switchboard configuration: the `mcpServers` JSON format plus our extensions, validated
 * with precise errors, `${VAR}` substituted, defaults filled in.
 *
 * Format (every field but one of command/url optional):
 *
 * ```jsonc
 * {
 *   "separator": "__",                      // between server and tool in qualified names
 *   "mcpServers": {                         // or "servers" (VS Code) or "services" (legacy); only one
 *     "github": {
 *       "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
 *       "env": { "GITHUB_TOKEN": "${GITHUB_TOKEN}" },
 *       "cwd": "./work",                    // relative to the config file's directory
 *       "type": "stdio",                    // optional on stdio entries
 *       "disabled": false,
 *       "fallbacks": ["github-mirror"],     // other servers' names, tried in order; not transitive
 *       "restart": { "maxRestarts": 5, "withinMs": 60000, "cooldownMs": 300000, "healthyAfterMs": 10000,
 *                    "backoff": { "initialMs": 100, "maxMs": 30000, "factor": 2, "jitter": 0.2 } },
 *       "requestTimeoutMs": 60000, "startTimeoutMs": 30000,
 *       "maxConcurrency": 8, "maxQueue": 1000,
 *       "circuit": { "failureThreshold": 5, "cooldownMs": 10000 },
 *       "tools": { "only": ["search_*", "get_issue"], "except": ["search_code"],
 *                  "descriptions": { "get_issue": "Read one GitHub issue." } }
 *     },
 *     "docs": { "url": "https://example.com/mcp", "type": "streamable-http",   // or "http", "sse", "websocket"
 *               "headers": { "Authorization": "Bearer ${DOCS_TOKEN:-anonymous}" } }
 *   }
 * }
 * ```
 *
 * - Substitution (`${VAR}`, `${VAR:-default}`, `$${` for a literal `${`; see config-substitute.ts)
 *   applies to command, args, env values, cwd, url and header values, and nowhere else. A disabled
 *   server's values are kept as written, so it needs none of its variables set.
 * - Tool filters live only under `tools`; `only` / `except` / `descriptions` on the entry itself are
 *   rejected with a pointer there, so there is one way to write them. `only` and `except` take tool
 *   names (the server's own, unqualified) where `*` matches any run of characters; `except` applies
 *   after `only`. In code, `tools.filter` may add a predicate.
 * - A remote entry without `type` is `websocket` for ws:// and wss:// URLs, else `streamable-http`.
 * - Server names must not contain (or run into) the separator, so qualified names split one way only.
 * - Errors are `ConfigError`s naming the file, the server and the field, and stop at the first one.
 */
import { readFile } from "node:fs/promises";
import { oauthFromConfig, type OAuthConfig } from "../auth/config.js";
import type { AuthOption } from "../transports/auth.js";
import { dirname, isAbsolute, resolve } from "node:path";
import { ConfigError } from "../jsonrpc/errors.js";
import { askInputs, fromHosts, type ConfigInputHandler } from "./config-hosts.js";
import { parseJson } from "./config-json.js";
import { UnsetVariableError, type Environment } from "./config-substitute.js";
import { CONFIG_DEFAULTS, SERVER_FIELDS, SERVER_HINTS, SERVER_MAP_KEYS, TOP_LEVEL_FIELDS } from "./config-fields.js";
import type {
  ConfigInput,
  ConnectTarget,
  RemoteTransportType,
  RestartPolicy,
  RestartPolicyInput,
  ServerEntry,
  ServerEntryInput,
  SwitchboardConfig,
} from "./config-types.js";
import { checkField, checkFields, closestName, describeValue, fail, isPlainObject, rejectUnknownFields, type CheckContext } from "./config-validate.js";
import { serverNameProblem, type ToolFilter } from "./namespacing.js";
import type { BackoffPolicy } from "../supervisor/backoff.js";
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS, speaks } from "../connection/eras/versions.js";

import type { FleetConfig } from "./fleet-seam.js";

export { CONFIG_DEFAULTS } from "./config-fields.js";

/** How `loadConfig` and `parseConfig` read a config: variables, where it came from, inputs, warnings. */
export interface LoadConfigOptions {
  /** Where `${VAR}` values come from. Default: `process.env`. */
  env?: Environment;
  /** How errors name the source; set by `loadConfig(path)`, useful for objects from elsewhere. */
  file?: string;
  /** Directory that relative `cwd`s are resolved against; set by `loadConfig(path)`. */
  baseDir?: string;
  /** VS Code's `${input:id}`: the value of each input a server uses (default: env `MCP_INPUT_<ID>`; config-hosts.ts). */
  inputs?: ConfigInputHandler;
  /** A config warning, such as another host's top-level keys being ignored. Default: `process.emitWarning`. */
  onWarning?: (message: string) => void;
  /**
   * An unset `${VAR}` rejects the whole config. Default: the file's `strictEnv`, else
   * false: the server that needs the variable is down with a reason naming it, and the others start.
   */
  strictEnv?: boolean;
}

/** Reads and checks a config file, or checks a config object. Rejects with `ConfigError`. */
export async function loadConfig(source: string | ConfigInput, options: LoadConfigOptions = {}): Promise<SwitchboardConfig> {
  if (typeof source !== "string") return parseConfig(await askInputs(source, options.inputs), options);
  let text: string;
  try {
    text = await readFile(source, "utf8");
  } catch (error) {
    const code = error instanceof Error && "code" in error ? error.code : undefined;
    const message = code === "ENOENT" ? "file not found" : `cannot read the file (${error instanceof Error ? error.message : String(error)})`;
    throw new ConfigError(message, { file: source, cause: error });
  }
  const located = { ...options, file: options.file ?? source, baseDir: options.baseDir ?? dirname(resolve(source)) };
  return parseConfig(await askInputs(jsonOf(text, located), options.inputs), located);
}

/** Parses JSON text and checks it; errors carry line and column for syntax errors. */
export function parseConfigText(text: string, options: LoadConfigOptions = {}): SwitchboardConfig {
  return parseConfig(jsonOf(text, options), options);
}

function jsonOf(text: string, options: LoadConfigOptions): unknown {
  const parsed = parseJson(text);
  if (!parsed.ok) {
    const { line, column, message } = parsed.problem;
    throw new ConfigError(`invalid JSON at line ${line}, column ${column}: ${message}`, options.file !== undefined ? { file: options.file } : {});
  }
  return parsed.value;
}

/** Checks a config object (as parsed from JSON, or written in code) and normalises it. */
export function parseConfig(input: unknown, options: LoadConfigOptions = {}): SwitchboardConfig {
  const env = options.env ?? process.env;
  const top: CheckContext = { file: options.file, env, substitute: false };
  if (!isPlainObject(input)) {
    fail(top, [], `expected a JSON object with "mcpServers", found ${describeValue(input)}`);
  }
  if (input.inputs !== undefined) checkField(TOP_LEVEL_FIELDS, "inputs", input.inputs, top);
  // Other hosts' files (config-hosts.ts): their own keys dropped, ${input:id} filled in.
  const file = fromHosts(input, top, options.onWarning);
  rejectUnknownFields(file, TOP_LEVEL_FIELDS, [], top);

  // Ignored, but a wrong type is a mistake the schema would flag too: say so instead of loading quietly.
  if (file.$schema !== undefined) checkField(TOP_LEVEL_FIELDS, "$schema", file.$schema, top);
  const separator = file.separator === undefined ? CONFIG_DEFAULTS.separator : checkField(TOP_LEVEL_FIELDS, "separator", file.separator, top);

  const mapKeys = SERVER_MAP_KEYS.filter((key) => file[key] !== undefined);
  const [mapKey, ...more] = mapKeys;
  if (mapKey === undefined) fail(top, [], 'no servers: expected a "mcpServers" object ({ "mcpServers": { "name": { "command": ... } } })');
  if (more.length > 0) {
    fail(top, [], `both ${mapKeys.map((key) => `"${key}"`).join(" and ")} are given; put every server under one of them ("mcpServers" is the usual name)`);
  }
  const map = file[mapKey];
  if (!isPlainObject(map)) fail(top, [mapKey], `expected an object of servers by name, found ${describeValue(map)}`);

  const names = Object.keys(map);
  const strictEnv = options.strictEnv ?? (file.strictEnv === undefined ? false : checkField(TOP_LEVEL_FIELDS, "strictEnv", file.strictEnv, top));
  const entries = names.map((name) => parseServerOrDown(name, map[name], separator, { ...top, server: name }, options.baseDir, strictEnv));
  for (const entry of entries) checkFallbacks(entry, names, { ...top, server: entry.name });

  return {
    // fromEntries, not assignment: a server named "__proto__" must stay a server.
    servers: Object.fromEntries(entries.map((entry) => [entry.name, entry])),
    options: { separator },
    ...(input.fleet !== undefined ? { fleet: fleetConfig(checkField(TOP_LEVEL_FIELDS, "fleet", input.fleet, { ...top, substitute: true }), top) } : {}),
    ...(input.gateway !== undefined ? { gateway: checkField(TOP_LEVEL_FIELDS, "gateway", input.gateway, { ...top, substitute: true }) } : {}),
    ...(options.file !== undefined ? { file: options.file } : {}),
  };
}

function fleetConfig(fleet: { redis?: string; prefix?: string }, context: CheckContext): FleetConfig {
  if (fleet.redis === undefined) fail(context, ["fleet", "redis"], 'is required: the Redis URL, e.g. "${REDIS_URL}"');
  return { redis: fleet.redis, ...(fleet.prefix !== undefined ? { prefix: fleet.prefix } : {}) };
}

/** Sockets beside an entry's `maxConcurrency` for the requests that are not calls. */
const UNCOUNTED_REQUEST_SOCKETS = 2;

/** What `connect()` needs from an entry. */
export function targetOf(entry: ServerEntry): ConnectTarget {
  if (entry.type === "stdio") {
    return { command: entry.command, args: entry.args, env: entry.env, ...(entry.cwd !== undefined ? { cwd: entry.cwd } : {}) };
  }
  const auth = entry.auth ?? oauthProvider(entry);
  // One connection per call the entry lets run at once (no pipelining: MCP POSTs are not idempotent),
  // and a few for the requests its limit does not count (list refreshes, pings), so they never make a call wait.
  const connections = Number.isFinite(entry.maxConcurrency) ? { connections: entry.maxConcurrency + UNCOUNTED_REQUEST_SOCKETS } : {};
  return { url: entry.url, type: entry.type, headers: entry.headers, ...(auth !== undefined ? { auth } : {}), ...connections };
}

/** One provider per entry (built on first use), so restarts keep its pending authorization. */
const providers = new WeakMap<object, AuthOption>();
function oauthProvider(entry: ServerEntry & { oauth?: OAuthConfig }): AuthOption | undefined {
  if (entry.oauth === undefined) return undefined;
  let provider = providers.get(entry);
  if (provider === undefined) {
    provider = oauthFromConfig(entry.oauth);
    providers.set(entry, provider);
  }
  return provider;
}

// ---------------------------------------------------------------------------------------------------

/**
 * A server entry; one that needs a variable that is not set (and no `strictEnv`) is parsed as written,
 * as a disabled one is, and carries the error: the board keeps it down with that reason.
 */
function parseServerOrDown(name: string, raw: unknown, separator: string, context: CheckContext, baseDir: string | undefined, strictEnv: boolean): ServerEntry {
  try {
    return parseServer(name, raw, separator, context, baseDir);
  } catch (error) {
    if (strictEnv || !(error instanceof UnsetVariableError) || !isPlainObject(raw) || raw.disabled === true) throw error;
    const { lazy: _lazy, ...asWritten } = parseServer(name, { ...raw, disabled: true }, separator, context, baseDir);
    return { ...asWritten, disabled: false, configError: error };
  }
}

function parseServer(name: string, raw: unknown, separator: string, context: CheckContext, baseDir: string | undefined): ServerEntry {
  const problem = serverNameProblem(name, separator);
  if (problem !== undefined) fail(context, [], problem);
  if (!isPlainObject(raw)) fail(context, [], `expected an object (a server entry), found ${describeValue(raw)}`);
  // Misspelt fields first: "comand" should be reported as a typo, not as a missing "command".
  rejectUnknownFields(raw, SERVER_FIELDS, [], context, SERVER_HINTS);

  const disabled = raw.disabled === undefined ? false : checkField(SERVER_FIELDS, "disabled", raw.disabled, context);
  const target = serverKind(raw, context);
  const fields = checkFields(raw, SERVER_FIELDS, [], { ...context, kind: target.kind, substitute: !disabled }, SERVER_HINTS);

  const common = {
    name,
    disabled,
    fallbacks: fields.fallbacks ?? NONE,
    restart: restartPolicy(fields.restart, context),
    requestTimeoutMs: fields.requestTimeoutMs ?? CONFIG_DEFAULTS.requestTimeoutMs,
    ...(fields.startTimeoutMs !== undefined ? { startTimeoutMs: fields.startTimeoutMs } : {}),
    maxConcurrency: fields.maxConcurrency ?? CONFIG_DEFAULTS.maxConcurrency,
    maxQueue: fields.maxQueue ?? CONFIG_DEFAULTS.maxQueue,
    tools: fields.tools ?? NO_FILTER,
    circuit: { ...CONFIG_DEFAULTS.circuit, ...fields.circuit },
    ...protocolFields(fields, context),
    ...(fields.maxMessageBytes !== undefined ? { maxMessageBytes: fields.maxMessageBytes } : {}),
    ...(fields.maxResultChars !== undefined ? { maxResultChars: fields.maxResultChars } : {}),
    ...(fields.shared !== undefined ? { shared: fields.shared } : {}),
    ...(fields.fleet !== undefined ? { fleet: fields.fleet } : {}),
    ...(fields.lazy === true ? { lazy: true } : {}),
    ...(fields.idleMs !== undefined ? { idleMs: fields.idleMs } : {}),
  };

  // serverKind made sure of command or url; the checks below only tell the compiler.
  if (target.kind === "stdio") {
    const { command, cwd } = fields;
    if (command === undefined) return fail(context, [], NEEDS_TARGET);
    return {
      ...common,
      type: "stdio",
      command,
      args: fields.args ?? NONE,
      env: fields.env ?? NO_ENV,
      ...(cwd !== undefined ? { cwd: baseDir !== undefined && !disabled && !isAbsolute(cwd) ? resolve(baseDir, cwd) : cwd } : {}),
    };
  }
  const { url, oauth, auth } = fields;
  if (url === undefined) return fail(context, [], NEEDS_TARGET);
  const headers = fields.headers ?? {};
  const type = remoteType(target.type, url, !disabled, context);
  for (const [header, value] of Object.entries(headers)) {
    // A line break in a header value would let a variable's value inject headers of its own.
    if (/[\r\n]/.test(value)) fail(context, ["headers", header], "header values cannot contain line breaks");
  }
  if (oauth !== undefined && auth !== undefined) fail(context, ["oauth"], 'give "oauth" (settings) or "auth" (a provider), not both');
  if (oauth?.tokenFile !== undefined && baseDir !== undefined && !disabled && !isAbsolute(oauth.tokenFile)) oauth.tokenFile = resolve(baseDir, oauth.tokenFile);
  return {
    ...common,
    type,
    url,
    headers,
    ...(oauth !== undefined ? { oauth } : {}),
    ...(auth !== undefined ? { auth } : {}),
    ...(fields.principalHeaders !== undefined ? { principalHeaders: fields.principalHeaders } : {}),
  };
}

const NEEDS_TARGET = 'needs "command" (to run a stdio server) or "url" (to reach a remote one)';

type ServerType = NonNullable<ServerEntryInput["type"]>;
type Target = { kind: "stdio" } | { kind: "remote"; type: Exclude<ServerType, "stdio"> | undefined };

/** stdio or remote, from `command` / `url`, and `type` must agree. */
function serverKind(raw: Record<string, unknown>, context: CheckContext): Target {
  const hasCommand = raw.command !== undefined;
  const hasUrl = raw.url !== undefined;
  if (hasCommand && hasUrl) fail(context, [], 'has both "command" (stdio) and "url" (remote); keep one');
  if (!hasCommand && !hasUrl) fail(context, [], NEEDS_TARGET);
  const type = raw.type === undefined ? undefined : checkField(SERVER_FIELDS, "type", raw.type, context);
  if (hasCommand) {
    if (type !== undefined && type !== "stdio") fail(context, ["type"], `"${type}" needs "url", but this server has "command"`);
    return { kind: "stdio" };
  }
  if (type === "stdio") fail(context, ["type"], '"stdio" needs "command", but this server has "url"');
  return { kind: "remote", type };
}

const URL_SCHEMES = ["http:", "https:", "ws:", "wss:"];

function remoteType(type: Exclude<ServerType, "stdio"> | undefined, url: string, checkUrl: boolean, context: CheckContext): RemoteTransportType {
  // A disabled server's url may still hold unsubstituted ${VAR}s; it is checked when it is enabled.
  let scheme: string | undefined;
  if (checkUrl) {
    try {
      scheme = new URL(url).protocol;
    } catch {
      scheme = undefined;
    }
    if (scheme === undefined || !URL_SCHEMES.includes(scheme)) {
      fail(context, ["url"], `expected an absolute http://, https://, ws:// or wss:// URL, found ${describeValue(url)}`);
    }
  }
  const isWs = scheme === "ws:" || scheme === "wss:";
  if (type === undefined) return isWs ? "websocket" : "streamable-http";
  const normalised: RemoteTransportType = type === "http" ? "streamable-http" : type;
  if (isWs && normalised !== "websocket") {
    fail(context, ["type"], `"${type}" needs an http:// or https:// URL, but "url" is ${scheme}//; use "websocket" or change the URL`);
  }
  return normalised;
}

function restartPolicy(raw: RestartPolicyInput | undefined, context: CheckContext): RestartPolicy {
  const defaults = CONFIG_DEFAULTS.restart;
  const backoff: BackoffPolicy = { ...defaults.backoff, ...raw?.backoff };
  if (backoff.maxMs < backoff.initialMs) {
    const given = raw?.backoff ?? {};
    const initial = given.initialMs !== undefined ? `${backoff.initialMs}` : `${backoff.initialMs}, the default`;
    const field = given.maxMs !== undefined ? "maxMs" : "initialMs";
    const message =
      field === "maxMs"
        ? `expected at least initialMs (${initial}), found ${backoff.maxMs}`
        : `expected at most maxMs (${backoff.maxMs}, the default), found ${backoff.initialMs}`;
    fail(context, ["restart", "backoff", field], message);
  }
  const policy: RestartPolicy = {
    maxRestarts: raw?.maxRestarts ?? defaults.maxRestarts,
    withinMs: raw?.withinMs ?? defaults.withinMs,
    backoff,
    healthyAfterMs: raw?.healthyAfterMs ?? defaults.healthyAfterMs,
  };
  if (raw?.cooldownMs !== undefined) policy.cooldownMs = raw.cooldownMs;
  return policy;
}

// Shared by every entry that leaves them out (frozen: entries are read, never changed), so a board of
// thousands of servers does not keep thousands of empty lists.
const NONE: string[] = [];
Object.freeze(NONE);
const NO_ENV: Record<string, string> = Object.freeze({});
const NO_FILTER: ToolFilter = Object.freeze({});

function checkFallbacks(entry: ServerEntry, names: readonly string[], context: CheckContext): void {
  const seen = new Set<string>();
  entry.fallbacks.forEach((fallback, index) => {
    const path = ["fallbacks", index];
    if (fallback === entry.name) fail(context, path, "a server cannot be its own fallback");
    if (!names.includes(fallback)) {
      const close = closestName(
        fallback,
        names.filter((name) => name !== entry.name),
      );
      fail(
        context,
        path,
        close !== undefined ? `no server named "${fallback}"; did you mean "${close}"?` : `no server named "${fallback}" (servers: ${names.join(", ")})`,
      );
    }
    if (seen.has(fallback)) fail(context, path, `"${fallback}" is listed twice`);
    seen.add(fallback);
  });
}

/**
 * `protocol` is "auto", "legacy" or a version this client speaks: a pin is sent as-is, so a version
 * the client does not implement ("latest", a future date) can never work and is refused here, up front,
 * rather than by every start of the server.
 */
function protocolFields(fields: ServerEntryInput, context: CheckContext): { protocol?: string; autoListen?: boolean } {
  const out: { protocol?: string; autoListen?: boolean } = {};
  const { protocol } = fields;
  if (protocol !== undefined) {
    if (protocol !== "auto" && protocol !== "legacy" && !speaks(protocol)) {
      // No "did you mean": dates a digit apart are different versions, and the list is short.
      const versions = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS];
      fail(
        context,
        ["protocol"],
        `expected "auto", "legacy" or a protocol version this client speaks (${versions.join(", ")}), found ${JSON.stringify(protocol)}`,
      );
    }
    out.protocol = protocol;
  }
  if (fields.autoListen !== undefined) out.autoListen = fields.autoListen;
  return out;
}
