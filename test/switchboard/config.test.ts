import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, McpError } from "../../src/jsonrpc/errors.js";
import { CONFIG_DEFAULTS, loadConfig, parseConfig, parseConfigText, targetOf } from "../../src/switchboard/config.js";
import type { ConfigInput, RemoteServerEntry, StdioServerEntry } from "../../src/switchboard/config-types.js";
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from "../../src/connection/eras/versions.js";
import { FULL_CONFIG } from "./full-config.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "switchboard-config-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a config file in the temp directory and returns its path. */
function writeConfig(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

/** The ConfigError `parseConfig` throws for `input`, labelled as coming from mcp.json. */
function errorFor(input: unknown, env: Record<string, string | undefined> = {}): ConfigError {
  try {
    // strictEnv: an unset variable is an error here, as the table says (without it only its server is
    // down: test/switchboard/config-env.test.ts).
    parseConfig(input, { file: "mcp.json", env, strictEnv: true });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError, but the config was accepted");
}

/** The ConfigError `loadConfig(path)` rejects with. */
async function loadError(path: string): Promise<ConfigError> {
  const error = await loadConfig(path).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

const servers = (entries: Record<string, unknown>) => ({ mcpServers: entries });
const stdio = (extra: Record<string, unknown> = {}) => ({ command: "node", ...extra });
const remote = (extra: Record<string, unknown> = {}) => ({ url: "https://example.com/mcp", ...extra });

const defaults = {
  disabled: false,
  fallbacks: [],
  restart: CONFIG_DEFAULTS.restart,
  requestTimeoutMs: 60_000,
  maxConcurrency: Infinity,
  maxQueue: 1000,
  tools: {},
  circuit: { failureThreshold: 5, cooldownMs: 10_000 },
};

describe("loadConfig from a file", () => {
  it("reads a full file: stdio and remote servers, substitution, defaults and our extensions", async () => {
    const path = writeConfig("full.json", FULL_CONFIG);
    const config = await loadConfig(path, { env: { GITHUB_TOKEN: "ghp_123", MIRROR_HOST: "mirror.example.com" } });

    expect(config.file).toBe(path);
    expect(config.options).toEqual({ separator: "__" });
    expect(Object.keys(config.servers)).toEqual(["github", "github-mirror", "live", "legacy"]);
    expect(config.servers.github).toEqual({
      ...defaults,
      name: "github",
      type: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-github", "--owner=me"],
      env: { GITHUB_TOKEN: "ghp_123", LOG: "${NOT_A_VAR}" },
      cwd: join(dir, "work"),
      fallbacks: ["github-mirror"],
      restart: {
        maxRestarts: 3,
        withinMs: 10_000,
        cooldownMs: 300_000,
        healthyAfterMs: 2000,
        backoff: { initialMs: 50, maxMs: 30_000, factor: 2, jitter: 0.5 },
      },
      requestTimeoutMs: 5000,
      maxConcurrency: 8,
      maxQueue: 16,
      circuit: { failureThreshold: 2, cooldownMs: 10_000 },
      // Descriptions are not substituted: "${issue}" stays.
      tools: { only: ["search_*", "get_issue"], except: ["search_code"], descriptions: { get_issue: "Read one ${issue}." } },
    } satisfies StdioServerEntry);
    expect(config.servers["github-mirror"]).toEqual({
      ...defaults,
      name: "github-mirror",
      type: "streamable-http",
      url: "https://mirror.example.com/mcp",
      headers: { Authorization: "Bearer ghp_123" },
    } satisfies RemoteServerEntry);
    expect(config.servers.live).toMatchObject({ type: "websocket", url: "wss://live.example.com/mcp", headers: {} });
    expect(config.servers.legacy).toMatchObject({ type: "sse", disabled: true });
  });

  it("fills every default for a minimal entry", async () => {
    const config = await loadConfig(writeConfig("minimal.json", servers({ math: stdio() })), { env: {} });
    expect(config.servers.math).toEqual({ ...defaults, name: "math", type: "stdio", command: "node", args: [], env: {} });
    expect(config.options.separator).toBe("__");
  });

  it("uses process.env when no env is given", async () => {
    process.env.SWITCHBOARD_TEST_VAR = "from-process";
    try {
      const config = await loadConfig(writeConfig("process-env.json", servers({ a: stdio({ args: ["${SWITCHBOARD_TEST_VAR}"] }) })));
      expect((config.servers.a as StdioServerEntry).args).toEqual(["from-process"]);
    } finally {
      delete process.env.SWITCHBOARD_TEST_VAR;
    }
  });

  it("keeps an absolute cwd, and resolves a substituted relative one against the file's directory", async () => {
    const absolute = join(dir, "abs");
    const config = await loadConfig(writeConfig("cwd.json", servers({ a: stdio({ cwd: absolute }), b: stdio({ cwd: "${SUB:-sub}/dir" }) })), { env: {} });
    expect((config.servers.a as StdioServerEntry).cwd).toBe(absolute);
    expect((config.servers.b as StdioServerEntry).cwd).toBe(join(dir, "sub", "dir"));
  });

  it("accepts a byte order mark", async () => {
    const config = await loadConfig(writeConfig("bom.json", `\uFEFF${JSON.stringify(servers({ a: stdio() }))}`), { env: {} });
    expect(Object.keys(config.servers)).toEqual(["a"]);
  });

  it("reports invalid JSON with the file, line and column", async () => {
    const path = writeConfig("trailing.json", '{\n  "mcpServers": {\n    "a": { "command": "node", },\n  }\n}\n');
    const error = await loadError(path);
    expect(error.message).toBe(`${path}: invalid JSON at line 3, column 29: trailing comma: JSON allows no "," before "}"`);
    expect(error.file).toBe(path);
  });

  it("reports a comment in the file", async () => {
    const path = writeConfig("comment.json", '{\n  // my servers\n  "mcpServers": {}\n}');
    await expect(loadConfig(path)).rejects.toHaveProperty("message", `${path}: invalid JSON at line 2, column 3: comments are not allowed in JSON`);
  });

  it("reports an empty file", async () => {
    const path = writeConfig("empty.json", "");
    await expect(loadConfig(path)).rejects.toHaveProperty("message", `${path}: invalid JSON at line 1, column 1: the file is empty; expected a JSON object`);
  });

  it("reports a missing file", async () => {
    const path = join(dir, "nope.json");
    const error = await loadError(path);
    expect(error.message).toBe(`${path}: file not found`);
    expect((error.cause as NodeJS.ErrnoException).code).toBe("ENOENT");
  });

  it("reports a directory given as the file", async () => {
    const error = await loadError(dir);
    expect(error.message).toMatch(new RegExp(`^${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: cannot read the file \\(EISDIR`));
  });

  it("names the file in validation errors too", async () => {
    const path = writeConfig("missing-var.json", servers({ github: stdio({ env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } }) }));
    await expect(loadConfig(path, { env: {}, strictEnv: true })).rejects.toHaveProperty(
      "message",
      `${path}, server "github", field "env.GITHUB_TOKEN": environment variable GITHUB_TOKEN is not set (use \${GITHUB_TOKEN:-default} to give a default)`,
    );
  });

  it("lets `file` rename the source in messages", async () => {
    const path = writeConfig("renamed.json", servers({ a: stdio({ comand: "x" }) }));
    await expect(loadConfig(path, { file: "mcp.json" })).rejects.toHaveProperty(
      "message",
      'mcp.json, server "a", field "comand": unknown field; did you mean "command"?',
    );
  });
});

describe("loadConfig / parseConfig from an object", () => {
  it("takes an object as is (no file in messages unless given)", async () => {
    const config = await loadConfig(servers({ a: stdio() }) as ConfigInput, { env: {} });
    expect(config.file).toBeUndefined();
    expect(() => parseConfig(servers({ a: { comand: "x" } }), { env: {} })).toThrow(
      expect.objectContaining({ message: 'server "a", field "comand": unknown field; did you mean "command"?' }),
    );
  });

  it('accepts the "servers" (VS Code) and legacy "services" keys', () => {
    expect(Object.keys(parseConfig({ servers: { a: stdio() } }, { env: {} }).servers)).toEqual(["a"]);
    expect(Object.keys(parseConfig({ services: { b: remote() } }, { env: {} }).servers)).toEqual(["b"]);
  });

  it("accepts an empty server map", () => {
    expect(parseConfig({ mcpServers: {} }).servers).toEqual({});
  });

  it("takes a protocol mode or version and autoListen per server, and leaves them unset otherwise", () => {
    const config = parseConfig(servers({ a: stdio({ protocol: "legacy" }), b: stdio({ protocol: "2026-07-28", autoListen: false }), c: stdio() }));
    expect(config.servers.a).toMatchObject({ protocol: "legacy" });
    expect(config.servers.b).toMatchObject({ protocol: "2026-07-28", autoListen: false });
    expect(config.servers.c).not.toHaveProperty("protocol");
    expect(config.servers.c).not.toHaveProperty("autoListen");
  });

  it("accepts every protocol version the client speaks, and no other (the client's own list, read at check time)", () => {
    for (const version of [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]) {
      expect(parseConfig(servers({ a: stdio({ protocol: version }) })).servers.a.protocol).toBe(version);
    }
    expect(() => parseConfig(servers({ a: stdio({ protocol: "2099-01-01" }) }))).toThrow(ConfigError);
  });

  it("fills restart.healthyAfterMs (10000) and leaves startTimeoutMs to the board unless given", () => {
    const config = parseConfig(servers({ a: stdio(), b: stdio({ startTimeoutMs: 120_000, restart: { healthyAfterMs: 0 } }) }));
    expect(config.servers.a.restart.healthyAfterMs).toBe(10_000);
    expect(config.servers.a).not.toHaveProperty("startTimeoutMs");
    expect(config.servers.b).toMatchObject({ startTimeoutMs: 120_000, restart: { healthyAfterMs: 0 } });
  });

  it('accepts "type": "stdio" on stdio entries', () => {
    expect(parseConfig(servers({ a: stdio({ type: "stdio" }) })).servers.a.type).toBe("stdio");
  });

  it.each([
    ["https://x.example/mcp", undefined, "streamable-http"],
    ["http://localhost:3000/mcp", "http", "streamable-http"],
    ["http://localhost:3000/mcp", "streamable-http", "streamable-http"],
    ["http://localhost:3000/sse", "sse", "sse"],
    ["ws://localhost:3000", undefined, "websocket"],
    ["wss://x.example/mcp", "websocket", "websocket"],
    ["https://x.example/mcp", "websocket", "websocket"],
  ])("url %s with type %s is %s", (url, type, expected) => {
    const config = parseConfig(servers({ a: { url, ...(type ? { type } : {}) } }));
    expect(config.servers.a.type).toBe(expected);
  });

  it("takes a custom separator and checks server names against it", () => {
    const config = parseConfig({ separator: ".", mcpServers: { my__server: stdio() } });
    expect(config.options.separator).toBe(".");
    expect(() => parseConfig({ separator: ".", mcpServers: { "my.server": stdio() } })).toThrow(ConfigError);
  });

  it("accepts code-only values: Infinity limits and a filter predicate", () => {
    const filter = (tool: { name: string }) => tool.name !== "x";
    const config = parseConfig(servers({ a: stdio({ maxConcurrency: Infinity, maxQueue: Infinity, tools: { filter } }) }));
    expect(config.servers.a).toMatchObject({ maxConcurrency: Infinity, maxQueue: Infinity, tools: { filter } });
  });

  it("treats undefined fields as absent (code often spreads optional values)", () => {
    const config = parseConfig(servers({ a: { command: "node", url: undefined, args: undefined, cwd: undefined } }));
    expect(config.servers.a).toMatchObject({ type: "stdio", args: [] });
    expect("cwd" in config.servers.a).toBe(false);
  });

  it("keeps a relative cwd as written when there is no file", () => {
    expect((parseConfig(servers({ a: stdio({ cwd: "rel" }) })).servers.a as StdioServerEntry).cwd).toBe("rel");
  });

  it('keeps a server named "__proto__" (with another separator) as a server, not a prototype', () => {
    const input = JSON.parse('{"separator": ".", "mcpServers": {"__proto__": {"command": "node", "env": {"__proto__": "x"}}}}');
    const config = parseConfig(input);
    expect(Object.keys(config.servers)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(config.servers)).toBe(Object.prototype);
    expect(Object.keys((config.servers["__proto__"] as StdioServerEntry).env)).toEqual(["__proto__"]);
  });

  it("does not mutate its input", () => {
    const input = servers({ a: stdio({ args: ["${X:-1}"], tools: { only: ["t"] } }) });
    const copy = structuredClone(input);
    parseConfig(input, { env: {} });
    expect(input).toEqual(copy);
  });
});

describe("substitution", () => {
  const env = { TOKEN: "t0k", HOST: "api.example.com", EMPTY: "", BIN: "/usr/bin/node" };
  const one = (entry: unknown) => parseConfig(servers({ a: entry }), { env }).servers.a;

  it("applies to command, args, env values, cwd", () => {
    expect(one({ command: "${BIN}", args: ["--token", "${TOKEN}", "${MISSING:-x}"], env: { T: "${TOKEN}" }, cwd: "/srv/${EMPTY:-app}" })).toMatchObject({
      command: "/usr/bin/node",
      args: ["--token", "t0k", "x"],
      env: { T: "t0k" },
      cwd: "/srv/app",
    });
  });

  it("applies to url and header values, not header names", () => {
    expect(one({ url: "https://${HOST}/mcp", headers: { "X-${TOKEN}": "Bearer ${TOKEN}" } })).toMatchObject({
      url: "https://api.example.com/mcp",
      headers: { "X-${TOKEN}": "Bearer t0k" },
    });
  });

  it("does not apply to env names, fallbacks, tool filters or descriptions", () => {
    const config = parseConfig(
      servers({
        a: stdio({ env: { "${TOKEN}": "v" }, tools: { only: ["${TOKEN}"], descriptions: { t: "${TOKEN}" } }, fallbacks: ["b"] }),
        b: stdio(),
      }),
      { env },
    );
    expect(config.servers.a).toMatchObject({ env: { "${TOKEN}": "v" }, tools: { only: ["${TOKEN}"], descriptions: { t: "${TOKEN}" } } });
  });

  it("gives defaults for unset and empty variables, and keeps a set empty variable without default", () => {
    expect(one(stdio({ args: ["${NOPE:-d1}", "${EMPTY:-d2}", "${EMPTY}", "${TOKEN:-unused}"] }))).toMatchObject({
      args: ["d1", "d2", "", "t0k"],
    });
  });

  it('"$${" escapes a literal "${"', () => {
    expect(one(stdio({ args: ["$${TOKEN}", "price: $5", "$${NOPE:-x}"] }))).toMatchObject({ args: ["${TOKEN}", "price: $5", "${NOPE:-x}"] });
  });

  it("leaves a disabled server's values as written, so its variables need not be set", () => {
    const config = parseConfig(
      servers({
        off: { url: "https://${UNSET_HOST}/mcp", headers: { A: "${UNSET}" }, disabled: true },
        offStdio: { command: "${UNSET_BIN}", cwd: "rel/${UNSET}", disabled: true },
      }),
      { env: {} },
    );
    expect(config.servers.off).toMatchObject({ url: "https://${UNSET_HOST}/mcp", headers: { A: "${UNSET}" }, disabled: true });
    expect(config.servers.offStdio).toMatchObject({ command: "${UNSET_BIN}", cwd: "rel/${UNSET}" });
  });
});

describe("every error message", () => {
  const VAR_HELP = "(use ${GITHUB_TOKEN:-default} to give a default)";
  const table: Array<[string, unknown, string, Record<string, string>?]> = [
    // --- the top level ---
    ["not an object", [], 'mcp.json: expected a JSON object with "mcpServers", found an array'],
    ["null", null, 'mcp.json: expected a JSON object with "mcpServers", found null'],
    ["no server map", {}, 'mcp.json: no servers: expected a "mcpServers" object ({ "mcpServers": { "name": { "command": ... } } })'],
    [
      "mcpServers and services",
      { mcpServers: {}, services: {} },
      'mcp.json: both "mcpServers" and "services" are given; put every server under one of them ("mcpServers" is the usual name)',
    ],
    [
      "all three keys",
      { mcpServers: {}, servers: {}, services: {} },
      'mcp.json: both "mcpServers" and "servers" and "services" are given; put every server under one of them ("mcpServers" is the usual name)',
    ],
    ["mcpServers not an object", { mcpServers: [] }, 'mcp.json, field "mcpServers": expected an object of servers by name, found an array'],
    ["misspelt top-level key", { mcpservers: {} }, 'mcp.json, field "mcpservers": unknown field; did you mean "mcpServers"?'],
    ["snake_case top-level key", { mcp_servers: {} }, 'mcp.json, field "mcp_servers": unknown field; did you mean "mcpServers"?'],
    ["unknown top-level key", { mcpServers: {}, seperator: "." }, 'mcp.json, field "seperator": unknown field; did you mean "separator"?'],
    ["empty separator", { separator: "", mcpServers: {} }, 'mcp.json, field "separator": expected a non-empty string, found an empty string'],
    ["separator not a string", { separator: 1, mcpServers: {} }, 'mcp.json, field "separator": expected a non-empty string, found 1'],

    // --- protocol settings ---
    [
      "protocol neither mode nor version",
      servers({ a: stdio({ protocol: "modern" }) }),
      'mcp.json, server "a", field "protocol": expected "auto", "legacy" or a protocol version this client speaks (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05), found "modern"',
    ],
    // A pin is sent as-is: a version the client does not implement could never work, so it is refused here.
    [
      "protocol a version this client does not speak",
      servers({ a: stdio({ protocol: "2027-01-01" }) }),
      'mcp.json, server "a", field "protocol": expected "auto", "legacy" or a protocol version this client speaks (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05), found "2027-01-01"',
    ],
    [
      'protocol "latest"',
      servers({ a: stdio({ protocol: "latest" }) }),
      'mcp.json, server "a", field "protocol": expected "auto", "legacy" or a protocol version this client speaks (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05), found "latest"',
    ],
    [
      "protocol a misspelt version",
      servers({ a: stdio({ protocol: "2025-06-19" }) }),
      'mcp.json, server "a", field "protocol": expected "auto", "legacy" or a protocol version this client speaks (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05), found "2025-06-19"',
    ],
    ["protocol not a string", servers({ a: stdio({ protocol: 2026 }) }), 'mcp.json, server "a", field "protocol": expected a non-empty string, found 2026'],
    [
      "autoListen not a boolean",
      servers({ a: stdio({ autoListen: "yes" }) }),
      'mcp.json, server "a", field "autoListen": expected true or false, found the string "yes"',
    ],
    ["era instead of protocol", servers({ a: stdio({ era: "legacy" }) }), 'mcp.json, server "a", field "era": unknown field; did you mean "protocol"?'],

    // --- server names and entries ---
    ["empty server name", servers({ "": stdio() }), 'mcp.json, server "": server names cannot be empty'],
    [
      "name containing the separator",
      servers({ my__server: stdio() }),
      'mcp.json, server "my__server": the name contains the separator "__", which would make qualified tool names ambiguous; rename the server or choose another "separator"',
    ],
    [
      "name running into the separator",
      servers({ tools_: stdio() }),
      'mcp.json, server "tools_": the name ends with "_", which runs into the separator "__" ("tools___tool" would split as "tools" + "_tool"); rename the server or choose another "separator"',
    ],
    ["entry not an object", servers({ a: "node server.js" }), 'mcp.json, server "a": expected an object (a server entry), found the string "node server.js"'],
    ["entry null", servers({ a: null }), 'mcp.json, server "a": expected an object (a server entry), found null'],
    ["neither command nor url", servers({ a: {} }), 'mcp.json, server "a": needs "command" (to run a stdio server) or "url" (to reach a remote one)'],
    [
      "both command and url",
      servers({ a: { command: "x", url: "http://y" } }),
      'mcp.json, server "a": has both "command" (stdio) and "url" (remote); keep one',
    ],

    // --- unknown fields, with suggestions and hints ---
    ["typo", servers({ a: { comand: "node" } }), 'mcp.json, server "a", field "comand": unknown field; did you mean "command"?'],
    [
      "typo reported before missing command",
      servers({ a: { comand: "node", args: [] } }),
      'mcp.json, server "a", field "comand": unknown field; did you mean "command"?',
    ],
    ["case", servers({ a: stdio({ RequestTimeoutMs: 1 }) }), 'mcp.json, server "a", field "RequestTimeoutMs": unknown field; did you mean "requestTimeoutMs"?'],
    [
      "snake_case",
      servers({ a: stdio({ request_timeout_ms: 1 }) }),
      'mcp.json, server "a", field "request_timeout_ms": unknown field; did you mean "requestTimeoutMs"?',
    ],
    ["singular", servers({ a: stdio({ fallback: ["b"] }) }), 'mcp.json, server "a", field "fallback": unknown field; did you mean "fallbacks"?'],
    ["top-level only", servers({ a: stdio({ only: ["x"] }) }), 'mcp.json, server "a", field "only": unknown field here; did you mean "only" inside "tools"?'],
    [
      "top-level except",
      servers({ a: stdio({ except: ["x"] }) }),
      'mcp.json, server "a", field "except": unknown field here; did you mean "except" inside "tools"?',
    ],
    [
      "top-level descriptions",
      servers({ a: stdio({ descriptions: {} }) }),
      'mcp.json, server "a", field "descriptions": unknown field here; did you mean "descriptions" inside "tools"?',
    ],
    [
      "backoff outside restart",
      servers({ a: stdio({ backoff: {} }) }),
      'mcp.json, server "a", field "backoff": unknown field here; did you mean "backoff" inside "restart"?',
    ],
    ["timeout", servers({ a: stdio({ timeout: 5 }) }), 'mcp.json, server "a", field "timeout": unknown field; did you mean "requestTimeoutMs"?'],
    ["transport", servers({ a: remote({ transport: "sse" }) }), 'mcp.json, server "a", field "transport": unknown field; did you mean "type"?'],
    [
      "unknown, nothing close",
      servers({ a: stdio({ autoApprove: [] }) }),
      'mcp.json, server "a", field "autoApprove": unknown field (known fields: command, args, env, cwd, url, type, headers, disabled, fallbacks, restart, requestTimeoutMs, startTimeoutMs, maxConcurrency, maxQueue, tools, circuit, protocol, autoListen, lazy, idleMs, maxMessageBytes, maxResultChars, oauth, shared, principalHeaders, auth, fleet)',
    ],
    [
      "an Object.prototype name is unknown too",
      servers({ a: stdio({ constructor: 1 }) }),
      'mcp.json, server "a", field "constructor": unknown field (known fields: command, args, env, cwd, url, type, headers, disabled, fallbacks, restart, requestTimeoutMs, startTimeoutMs, maxConcurrency, maxQueue, tools, circuit, protocol, autoListen, lazy, idleMs, maxMessageBytes, maxResultChars, oauth, shared, principalHeaders, auth, fleet)',
    ],
    ["nested typo", servers({ a: stdio({ restart: { backof: {} } }) }), 'mcp.json, server "a", field "restart.backof": unknown field; did you mean "backoff"?'],
    [
      "deeply nested typo",
      servers({ a: stdio({ restart: { backoff: { jiter: 0.1 } } }) }),
      'mcp.json, server "a", field "restart.backoff.jiter": unknown field; did you mean "jitter"?',
    ],
    ["tools typo", servers({ a: stdio({ tools: { onyl: ["x"] } }) }), 'mcp.json, server "a", field "tools.onyl": unknown field; did you mean "only"?'],
    [
      "circuit typo",
      servers({ a: stdio({ circuit: { threshold: 2 } }) }),
      'mcp.json, server "a", field "circuit.threshold": unknown field (known fields: failureThreshold, cooldownMs)',
    ],

    // --- fields for the other kind of server ---
    [
      "args on a remote server",
      servers({ a: remote({ args: [] }) }),
      'mcp.json, server "a", field "args": applies to stdio servers (with "command"); this server has "url"',
    ],
    [
      "env on a remote server",
      servers({ a: remote({ env: {} }) }),
      'mcp.json, server "a", field "env": applies to stdio servers (with "command"); this server has "url"',
    ],
    [
      "cwd on a remote server",
      servers({ a: remote({ cwd: "/" }) }),
      'mcp.json, server "a", field "cwd": applies to stdio servers (with "command"); this server has "url"',
    ],
    [
      "headers on a stdio server",
      servers({ a: stdio({ headers: {} }) }),
      'mcp.json, server "a", field "headers": applies to remote servers (with "url"); this server has "command"',
    ],

    // --- type ---
    [
      "stdio type with url",
      servers({ a: remote({ type: "stdio" }) }),
      'mcp.json, server "a", field "type": "stdio" needs "command", but this server has "url"',
    ],
    [
      "remote type with command",
      servers({ a: stdio({ type: "sse" }) }),
      'mcp.json, server "a", field "type": "sse" needs "url", but this server has "command"',
    ],
    [
      "misspelt type",
      servers({ a: remote({ type: "streamable_http" }) }),
      'mcp.json, server "a", field "type": expected one of "stdio", "streamable-http", "http", "sse", "websocket", found the string "streamable_http" (did you mean "streamable-http"?)',
    ],
    [
      "unknown type",
      servers({ a: remote({ type: "grpc" }) }),
      'mcp.json, server "a", field "type": expected one of "stdio", "streamable-http", "http", "sse", "websocket", found the string "grpc"',
    ],
    [
      "http type with a ws url",
      servers({ a: { url: "ws://localhost:1", type: "sse" } }),
      'mcp.json, server "a", field "type": "sse" needs an http:// or https:// URL, but "url" is ws://; use "websocket" or change the URL',
    ],

    // --- wrong types ---
    [
      "command not a string",
      servers({ a: { command: ["node", "x.js"] } }),
      'mcp.json, server "a", field "command": expected a non-empty string, found an array',
    ],
    ["empty command", servers({ a: { command: "" } }), 'mcp.json, server "a", field "command": expected a non-empty string, found an empty string'],
    [
      "args a string",
      servers({ a: stdio({ args: "--port 3000" }) }),
      'mcp.json, server "a", field "args": expected an array of strings, found the string "--port 3000"',
    ],
    ["args element a number", servers({ a: stdio({ args: ["--port", 3000] }) }), 'mcp.json, server "a", field "args[1]": expected a string, found 3000'],
    [
      "env an array",
      servers({ a: stdio({ env: ["A=1"] }) }),
      'mcp.json, server "a", field "env": expected an object of strings ({ "NAME": "value" }), found an array',
    ],
    ["env value a number", servers({ a: stdio({ env: { PORT: 3000 } }) }), 'mcp.json, server "a", field "env.PORT": expected a string, found 3000'],
    [
      "env value with an odd key",
      servers({ a: stdio({ env: { "my.key": true } }) }),
      'mcp.json, server "a", field "env[\'my.key\']": expected a string, found true',
    ],
    [
      "header value null",
      servers({ a: remote({ headers: { "X-Api-Key": null } }) }),
      'mcp.json, server "a", field "headers.X-Api-Key": expected a string, found null',
    ],
    [
      "disabled a string",
      servers({ a: stdio({ disabled: "true" }) }),
      'mcp.json, server "a", field "disabled": expected true or false, found the string "true"',
    ],
    [
      "fallbacks a string",
      servers({ a: stdio({ fallbacks: "b" }) }),
      'mcp.json, server "a", field "fallbacks": expected an array of non-empty strings, found the string "b"',
    ],
    [
      "timeout a string",
      servers({ a: stdio({ requestTimeoutMs: "5000" }) }),
      'mcp.json, server "a", field "requestTimeoutMs": expected an integer >= 1, found the string "5000"',
    ],
    ["timeout zero", servers({ a: stdio({ requestTimeoutMs: 0 }) }), 'mcp.json, server "a", field "requestTimeoutMs": expected an integer >= 1, found 0'],
    [
      "timeout fractional",
      servers({ a: stdio({ requestTimeoutMs: 2.5 }) }),
      'mcp.json, server "a", field "requestTimeoutMs": expected an integer >= 1, found 2.5',
    ],
    ["maxConcurrency zero", servers({ a: stdio({ maxConcurrency: 0 }) }), 'mcp.json, server "a", field "maxConcurrency": expected an integer >= 1, found 0'],
    ["maxQueue negative", servers({ a: stdio({ maxQueue: -1 }) }), 'mcp.json, server "a", field "maxQueue": expected an integer >= 0, found -1'],
    ["restart not an object", servers({ a: stdio({ restart: true }) }), 'mcp.json, server "a", field "restart": expected an object, found true'],
    [
      "maxRestarts negative",
      servers({ a: stdio({ restart: { maxRestarts: -1 } }) }),
      'mcp.json, server "a", field "restart.maxRestarts": expected an integer >= 0, found -1',
    ],
    ["withinMs zero", servers({ a: stdio({ restart: { withinMs: 0 } }) }), 'mcp.json, server "a", field "restart.withinMs": expected an integer >= 1, found 0'],
    [
      "cooldownMs negative",
      servers({ a: stdio({ restart: { cooldownMs: -5 } }) }),
      'mcp.json, server "a", field "restart.cooldownMs": expected an integer >= 0, found -5',
    ],
    [
      "healthyAfterMs fractional",
      servers({ a: stdio({ restart: { healthyAfterMs: 1.5 } }) }),
      'mcp.json, server "a", field "restart.healthyAfterMs": expected an integer >= 0, found 1.5',
    ],
    [
      "healthyAfterMs outside restart",
      servers({ a: stdio({ healthyAfterMs: 5000 }) }),
      'mcp.json, server "a", field "healthyAfterMs": unknown field here; did you mean "healthyAfterMs" inside "restart"?',
    ],
    ["startTimeoutMs zero", servers({ a: stdio({ startTimeoutMs: 0 }) }), 'mcp.json, server "a", field "startTimeoutMs": expected an integer >= 1, found 0'],
    [
      "initialMs negative",
      servers({ a: stdio({ restart: { backoff: { initialMs: -1 } } }) }),
      'mcp.json, server "a", field "restart.backoff.initialMs": expected an integer >= 0, found -1',
    ],
    [
      "factor below 1",
      servers({ a: stdio({ restart: { backoff: { factor: 0.5 } } }) }),
      'mcp.json, server "a", field "restart.backoff.factor": expected a number >= 1, found 0.5',
    ],
    [
      "jitter above 1",
      servers({ a: stdio({ restart: { backoff: { jitter: 1.5 } } }) }),
      'mcp.json, server "a", field "restart.backoff.jitter": expected a number from 0 to 1, found 1.5',
    ],
    [
      "jitter a string",
      servers({ a: stdio({ restart: { backoff: { jitter: "10%" } } }) }),
      'mcp.json, server "a", field "restart.backoff.jitter": expected a number from 0 to 1, found the string "10%"',
    ],
    [
      "maxMs below initialMs",
      servers({ a: stdio({ restart: { backoff: { initialMs: 1000, maxMs: 500 } } }) }),
      'mcp.json, server "a", field "restart.backoff.maxMs": expected at least initialMs (1000), found 500',
    ],
    [
      "maxMs below the default initialMs",
      servers({ a: stdio({ restart: { backoff: { maxMs: 50 } } }) }),
      'mcp.json, server "a", field "restart.backoff.maxMs": expected at least initialMs (100, the default), found 50',
    ],
    [
      "initialMs above the default maxMs",
      servers({ a: stdio({ restart: { backoff: { initialMs: 60_000 } } }) }),
      'mcp.json, server "a", field "restart.backoff.initialMs": expected at most maxMs (30000, the default), found 60000',
    ],
    [
      "failureThreshold zero",
      servers({ a: stdio({ circuit: { failureThreshold: 0 } }) }),
      'mcp.json, server "a", field "circuit.failureThreshold": expected an integer >= 1, found 0',
    ],
    [
      "circuit cooldown a string",
      servers({ a: stdio({ circuit: { cooldownMs: "10s" } }) }),
      'mcp.json, server "a", field "circuit.cooldownMs": expected an integer >= 0, found the string "10s"',
    ],
    ["tools an array", servers({ a: stdio({ tools: ["x"] }) }), 'mcp.json, server "a", field "tools": expected an object, found an array'],
    [
      "only a string",
      servers({ a: stdio({ tools: { only: "read_file" } }) }),
      'mcp.json, server "a", field "tools.only": expected an array of non-empty strings, found the string "read_file"',
    ],
    [
      "only with an empty name",
      servers({ a: stdio({ tools: { only: ["a", ""] } }) }),
      'mcp.json, server "a", field "tools.only[1]": expected a non-empty string, found an empty string',
    ],
    [
      "description a number",
      servers({ a: stdio({ tools: { descriptions: { t: 1 } } }) }),
      'mcp.json, server "a", field "tools.descriptions.t": expected a string, found 1',
    ],
    [
      "filter in JSON",
      servers({ a: stdio({ tools: { filter: "x => true" } }) }),
      'mcp.json, server "a", field "tools.filter": expected a function, found the string "x => true"',
    ],
    [
      "a long string is shortened",
      servers({ a: stdio({ args: "x".repeat(100) }) }),
      `mcp.json, server "a", field "args": expected an array of strings, found the string "${"x".repeat(57)}..."`,
    ],

    // --- url ---
    [
      "url not a URL",
      servers({ a: { url: "localhost:3000/mcp" } }),
      'mcp.json, server "a", field "url": expected an absolute http://, https://, ws:// or wss:// URL, found the string "localhost:3000/mcp"',
    ],
    [
      "url relative",
      servers({ a: { url: "/mcp" } }),
      'mcp.json, server "a", field "url": expected an absolute http://, https://, ws:// or wss:// URL, found the string "/mcp"',
    ],
    [
      "url with another scheme",
      servers({ a: { url: "ftp://x/mcp" } }),
      'mcp.json, server "a", field "url": expected an absolute http://, https://, ws:// or wss:// URL, found the string "ftp://x/mcp"',
    ],
    [
      "url bad after substitution",
      servers({ a: { url: "${HOST}/mcp" } }),
      'mcp.json, server "a", field "url": expected an absolute http://, https://, ws:// or wss:// URL, found the string "example.com/mcp"',
      { HOST: "example.com" },
    ],
    [
      "header value with a line break from a variable",
      servers({ a: remote({ headers: { Authorization: "Bearer ${TOKEN}" } }) }),
      'mcp.json, server "a", field "headers.Authorization": header values cannot contain line breaks',
      { TOKEN: "x\r\nX-Evil: 1" },
    ],

    // --- substitution ---
    [
      "missing variable in env",
      servers({ github: stdio({ env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } }) }),
      `mcp.json, server "github", field "env.GITHUB_TOKEN": environment variable GITHUB_TOKEN is not set ${VAR_HELP}`,
    ],
    [
      "missing variable in command",
      servers({ a: { command: "${NODE_BIN}" } }),
      'mcp.json, server "a", field "command": environment variable NODE_BIN is not set (use ${NODE_BIN:-default} to give a default)',
    ],
    [
      "missing variable in args",
      servers({ a: stdio({ args: ["ok", "--key=${KEY}"] }) }),
      'mcp.json, server "a", field "args[1]": environment variable KEY is not set (use ${KEY:-default} to give a default)',
    ],
    [
      "missing variable in cwd",
      servers({ a: stdio({ cwd: "${WORKDIR}" }) }),
      'mcp.json, server "a", field "cwd": environment variable WORKDIR is not set (use ${WORKDIR:-default} to give a default)',
    ],
    [
      "missing variable in url",
      servers({ a: { url: "https://${HOST}/mcp" } }),
      'mcp.json, server "a", field "url": environment variable HOST is not set (use ${HOST:-default} to give a default)',
    ],
    [
      "missing variable in a header",
      servers({ a: remote({ headers: { Authorization: "Bearer ${API_TOKEN}" } }) }),
      'mcp.json, server "a", field "headers.Authorization": environment variable API_TOKEN is not set (use ${API_TOKEN:-default} to give a default)',
    ],
    [
      "unterminated substitution",
      servers({ a: stdio({ args: ["${HOME"] }) }),
      'mcp.json, server "a", field "args[0]": unterminated "${" in "${HOME" (close it with "}", or write "$${" for a literal "${")',
    ],
    [
      "another tool's syntax",
      servers({ a: remote({ headers: { Authorization: "${input:token}" } }) }),
      'mcp.json, server "a", field "headers.Authorization": invalid substitution "${input:token}": expected ${NAME} or ${NAME:-default}, where NAME is letters, digits and _ (write "$${" for a literal "${")',
    ],
    [
      "empty command after substitution",
      servers({ a: { command: "${BIN}" } }),
      'mcp.json, server "a", field "command": expected a non-empty string, found an empty string (after substituting "${BIN}")',
      { BIN: "" },
    ],

    // --- fallbacks ---
    ["fallback to itself", servers({ a: stdio({ fallbacks: ["a"] }) }), 'mcp.json, server "a", field "fallbacks[0]": a server cannot be its own fallback'],
    [
      "fallback misspelt",
      servers({ math: stdio({ fallbacks: ["math3"] }), math2: stdio() }),
      'mcp.json, server "math", field "fallbacks[0]": no server named "math3"; did you mean "math2"?',
    ],
    [
      "fallback unknown",
      servers({ a: stdio({ fallbacks: ["zzz"] }), b: stdio(), c: stdio() }),
      'mcp.json, server "a", field "fallbacks[0]": no server named "zzz" (servers: a, b, c)',
    ],
    ["fallback twice", servers({ a: stdio({ fallbacks: ["b", "b"] }), b: stdio() }), 'mcp.json, server "a", field "fallbacks[1]": "b" is listed twice'],
    [
      "fallback empty name",
      servers({ a: stdio({ fallbacks: [""] }) }),
      'mcp.json, server "a", field "fallbacks[0]": expected a non-empty string, found an empty string',
    ],
  ];

  it.each(table)("%s", (_label, input, message, env) => {
    expect(errorFor(input, env).message).toBe(message);
  });

  it("ConfigError carries file, server and field, and is an McpError that is never retried", () => {
    const error = errorFor(servers({ github: stdio({ env: { GITHUB_TOKEN: "${GITHUB_TOKEN}" } }) }));
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ file: "mcp.json", server: "github", field: "env.GITHUB_TOKEN", retryable: false, delivered: false, name: "ConfigError" });
  });

  it("a disabled server is still checked for structure", () => {
    expect(errorFor(servers({ a: { command: "x", disabled: true, args: "x" } })).message).toBe(
      'mcp.json, server "a", field "args": expected an array of strings, found the string "x"',
    );
  });

  it("a fallback may name a disabled server", () => {
    const config = parseConfig(servers({ a: stdio({ fallbacks: ["b"] }), b: stdio({ disabled: true }) }));
    expect(config.servers.a.fallbacks).toEqual(["b"]);
  });

  it("fallbacks may point at each other (routing does not follow them transitively)", () => {
    const config = parseConfig(servers({ a: stdio({ fallbacks: ["b"] }), b: stdio({ fallbacks: ["a"] }) }));
    expect([config.servers.a.fallbacks, config.servers.b.fallbacks]).toEqual([["b"], ["a"]]);
  });
});

describe("parseConfigText", () => {
  it("parses text, and labels errors with the file when given", () => {
    expect(Object.keys(parseConfigText('{"mcpServers": {"a": {"command": "x"}}}').servers)).toEqual(["a"]);
    expect(() => parseConfigText('{"mcpServers": {"a" {}}}', { file: "x.json" })).toThrow(
      expect.objectContaining({ message: 'x.json: invalid JSON at line 1, column 21: expected ":" after the property name, found `{`' }),
    );
    expect(() => parseConfigText("[1,]")).toThrow(
      expect.objectContaining({ message: 'invalid JSON at line 1, column 3: trailing comma: JSON allows no "," before "]"' }),
    );
  });
});

describe("targetOf", () => {
  it("gives connect() a stdio target", () => {
    const config = parseConfig(servers({ a: stdio({ args: ["s.js"], env: { A: "1" }, cwd: "/srv" }), b: stdio() }));
    expect(targetOf(config.servers.a)).toEqual({ command: "node", args: ["s.js"], env: { A: "1" }, cwd: "/srv" });
    expect(targetOf(config.servers.b)).toEqual({ command: "node", args: [], env: {} });
  });

  it("gives connect() a remote target", () => {
    const config = parseConfig(servers({ a: remote({ type: "http", headers: { A: "1" } }) }));
    expect(targetOf(config.servers.a)).toEqual({ url: "https://example.com/mcp", type: "streamable-http", headers: { A: "1" } });
  });
});
