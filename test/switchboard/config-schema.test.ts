/**
 * mcp.schema.json against the loader: the committed file is what the generator makes, ajv (draft
 * 2020-12) compiles it, and schema and loader agree on which configs are valid, except for the rules the
 * schema's description lists as the loader's alone (those are kept out of the generated configs).
 */
import { readdirSync, readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { OAuthConfig } from "../../src/auth/config.js";
import type { BackoffPolicy } from "../../src/supervisor/backoff.js";
import type { CircuitPolicy } from "../../src/supervisor/circuit-breaker.js";
import { parseConfig } from "../../src/switchboard/config.js";
import { SERVER_FIELDS } from "../../src/switchboard/config-fields.js";
import { configSchema, serverNamePattern } from "../../src/switchboard/config-schema.js";
import { FULL_CONFIG } from "./full-config.js";
import type { ConfigInput, RestartPolicyInput, ServerEntryInput } from "../../src/switchboard/config-types.js";
import type { Check, FieldSpec, FieldTable } from "../../src/switchboard/config-validate.js";
import { serverNameProblem, type ToolFilter } from "../../src/switchboard/namespacing.js";
import { renderConfigSchema, SCHEMA_FILE } from "../../scripts/config-schema.js";

const committed: unknown = JSON.parse(readFileSync(SCHEMA_FILE, "utf8"));
/** What ajv's strict mode (its defaults) has to say about the schema; nothing, it is checked below. */
const ajvWarnings: unknown[] = [];
const collect = (...args: unknown[]) => ajvWarnings.push(args);
const validate = new Ajv2020({ allErrors: true, logger: { log: collect, warn: collect, error: collect } }).compile(committed as object);

/** Every variable is set (to "set"): whether one is, is the environment's business, not the file's. */
const anyEnv: Record<string, string> = new Proxy({}, { get: () => "set" });

function loaderAccepts(config: unknown): boolean {
  try {
    parseConfig(config, { env: anyEnv });
    return true;
  } catch {
    return false;
  }
}

describe("mcp.schema.json", () => {
  it("is what `npm run config-schema` writes now (run it after changing config-fields.ts)", async () => {
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(await renderConfigSchema());
    expect(committed).toEqual(configSchema());
  });

  it("is shipped and exported by the package", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { files: string[]; exports: Record<string, unknown> };
    expect(pkg.files).toContain("mcp.schema.json");
    expect(pkg.exports["./mcp.schema.json"]).toBe("./mcp.schema.json");
  });

  it("describes every JSON field of the tables, and notes ${VAR} where it applies", () => {
    const schema = configSchema() as { $defs: { server: { properties: Record<string, { description: string }> } } };
    const server = schema.$defs.server.properties;
    const table: FieldTable = SERVER_FIELDS;
    expect(Object.keys(server)).toEqual(Object.keys(SERVER_FIELDS).filter((key) => key !== "auth" && key !== "principalHeaders"));
    for (const [key, property] of Object.entries(server)) {
      expect(property.description, key).toBeTruthy();
      expect(property.description.includes("${VAR}"), key).toBe(table[key]?.substitute === true);
    }
  });
});

describe("the input types are the tables'", () => {
  it("match the types of the code they feed", () => {
    expectTypeOf<NonNullable<ServerEntryInput["oauth"]>>().toEqualTypeOf<OAuthConfig>();
    expectTypeOf<NonNullable<ServerEntryInput["tools"]>>().toEqualTypeOf<ToolFilter>();
    expectTypeOf<NonNullable<ServerEntryInput["circuit"]>>().toEqualTypeOf<Partial<CircuitPolicy>>();
    expectTypeOf<NonNullable<RestartPolicyInput["backoff"]>>().toEqualTypeOf<Partial<BackoffPolicy>>();
    expectTypeOf<ServerEntryInput["type"]>().toEqualTypeOf<"stdio" | "streamable-http" | "http" | "sse" | "websocket" | undefined>();
    expectTypeOf<ConfigInput["mcpServers"]>().toEqualTypeOf<Record<string, ServerEntryInput> | undefined>();
  });
});

// ---------------------------------------------------------------------------------------------------

// The config examples live in the guide pages since the README became one screen (docs/guide/index.md).
const guide = new URL("../../docs/guide/", import.meta.url);
const readme = [
  "../../README.md",
  ...readdirSync(guide)
    .filter((name) => name.endsWith(".md"))
    .map((name) => `../../docs/guide/${name}`),
]
  .map((path) => readFileSync(new URL(path, import.meta.url), "utf8"))
  .join("\n");
/** The README's and the guide's jsonc blocks that hold a config, comments stripped (" // " never occurs in their strings). */
const readmeConfigs = [...readme.matchAll(/```jsonc\n([\s\S]*?)```/g)]
  .map((match) => (match[1] ?? "").replace(/\s+\/\/ .*$/gm, ""))
  .filter((text) => text.includes('"url"') || text.includes('"command"'))
  .map((text) => JSON.parse(text.trim().startsWith("{") ? text : `{ "mcpServers": { ${text} } }`) as unknown);

const stdio = { command: "node" };
const remote = { url: "https://example.com/mcp" };
/** The config, plus a stdio server for each fallback it names but does not have. */
function withFallbackTargets(config: unknown): unknown {
  const servers = (config as { mcpServers: Record<string, { fallbacks?: string[] }> }).mcpServers;
  const missing = Object.values(servers).flatMap((entry) => (entry.fallbacks ?? []).filter((name) => !Object.hasOwn(servers, name)));
  return { ...(config as object), mcpServers: { ...servers, ...Object.fromEntries(missing.map((name) => [name, { command: "node" }])) } };
}

const good: Array<[string, unknown]> = [
  ["minimal", { mcpServers: { math: stdio } }],
  ["$schema", { $schema: "./node_modules/mcp-switchboard/mcp.schema.json", mcpServers: { a: stdio } }],
  ["servers", { servers: { a: stdio } }],
  ["services", { services: { b: remote } }],
  ["empty map", { mcpServers: {} }],
  ["the full file of config.test.ts", FULL_CONFIG],
  ["protocol and autoListen", { mcpServers: { a: { ...stdio, protocol: "legacy" }, b: { ...stdio, protocol: "2026-07-28", autoListen: false } } }],
  ["type stdio", { mcpServers: { a: { ...stdio, type: "stdio" } } }],
  ["websocket over https", { mcpServers: { a: { url: "https://x.example/mcp", type: "websocket" } } }],
  ["custom separator", { separator: ".", mcpServers: { my__server: stdio } }],
  ["startTimeoutMs and healthyAfterMs 0", { mcpServers: { b: { ...stdio, startTimeoutMs: 120_000, restart: { healthyAfterMs: 0 } } } }],
  ["oauth", { mcpServers: { docs: { ...remote, oauth: { grant: "client_credentials", clientId: "${ID}", dpop: true, loopbackPort: 8765 } } } }],
  ["fallbacks to each other", { mcpServers: { a: { ...stdio, fallbacks: ["b"] }, b: { ...stdio, fallbacks: ["a"] } } }],
];

const bad: Array<[string, unknown]> = [
  ["an array", []],
  ["no server map", {}],
  ["two server maps", { mcpServers: {}, services: {} }],
  ["misspelt top-level key", { mcpservers: {} }],
  ["misspelt top-level key", { mcpServers: {}, seperator: "." }],
  ["empty separator", { separator: "", mcpServers: {} }],
  ["a $schema that is not a string", { $schema: 5, mcpServers: {} }],
  ["mcpServers an array", { mcpServers: [] }],
  ["an entry that is a string", { mcpServers: { a: "node" } }],
  ["neither command nor url", { mcpServers: { a: { args: [] } } }],
  ["both command and url", { mcpServers: { a: { ...stdio, ...remote } } }],
  ["a misspelt field", { mcpServers: { a: { comand: "node" } } }],
  ["only outside tools", { mcpServers: { a: { ...stdio, only: ["x"] } } }],
  ["type stdio with a url", { mcpServers: { a: { ...remote, type: "stdio" } } }],
  ["type sse with a command", { mcpServers: { a: { ...stdio, type: "sse" } } }],
  ["an unknown type", { mcpServers: { a: { ...remote, type: "grpc" } } }],
  ["headers on a stdio server", { mcpServers: { a: { ...stdio, headers: { A: "1" } } } }],
  ["env on a remote server", { mcpServers: { a: { ...remote, env: { A: "1" } } } }],
  ["oauth on a stdio server", { mcpServers: { a: { ...stdio, oauth: {} } } }],
  ["args a string", { mcpServers: { a: { ...stdio, args: "--port 3000" } } }],
  ["an env value a number", { mcpServers: { a: { ...stdio, env: { PORT: 3000 } } } }],
  ["a header value with a line break", { mcpServers: { a: { ...remote, headers: { A: "x\r\nB: 1" } } } }],
  ["requestTimeoutMs 0", { mcpServers: { a: { ...stdio, requestTimeoutMs: 0 } } }],
  ["requestTimeoutMs fractional", { mcpServers: { a: { ...stdio, requestTimeoutMs: 2.5 } } }],
  ["jitter above 1", { mcpServers: { a: { ...stdio, restart: { backoff: { jitter: 1.5 } } } } }],
  ["a fallback listed twice", { mcpServers: { a: { ...stdio, fallbacks: ["b", "b"] }, b: stdio } }],
  ["an unknown protocol", { mcpServers: { a: { ...stdio, protocol: "latest" } } }],
  ["tools.filter in JSON", { mcpServers: { a: { ...stdio, tools: { filter: "x => true" } } } }],
  ["an unknown oauth grant", { mcpServers: { a: { ...remote, oauth: { grant: "password" } } } }],
  ["loopbackPort too large", { mcpServers: { a: { ...remote, oauth: { loopbackPort: 70_000 } } } }],
  ["a name with the separator", { mcpServers: { a__b: stdio } }],
  ["a name running into the separator", { mcpServers: { x_: stdio } }],
  ["an empty name", { mcpServers: { "": stdio } }],
];

describe("ajv and the loader", () => {
  it("ajv compiles the schema in its default strict mode, without a warning", () => {
    expect(typeof validate).toBe("function");
    expect(ajvWarnings).toEqual([]);
  });

  // The README shows excerpts: a fallback may name a server it leaves out, which the loader would refuse.
  it.each(readmeConfigs.map((config, index): [string, unknown] => [`README example ${index + 1}`, config]))("both accept: %s", (_label, config) => {
    expect(loaderAccepts(withFallbackTargets(config))).toBe(true);
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(good)("both accept: %s", (_label, config) => {
    expect(loaderAccepts(config)).toBe(true);
    expect(validate(config), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(bad)("both reject: %s", (_label, config) => {
    expect(loaderAccepts(config)).toBe(false);
    expect(validate(config)).toBe(false);
  });

  it("reads the README's examples", () => {
    expect(readmeConfigs.length).toBeGreaterThanOrEqual(2);
  });
});

// ---------------------------------------------------------------------------------------------------
// The property: configs made from the tables, valid and not, minus the rules that are the loader's alone.

const SERVER_NAMES = ["alpha", "beta", "gamma", "a__b", "x_", "_", ""];
const URLS = ["https://example.com/mcp", "http://localhost:3000/mcp", "wss://live.example/mcp", "ws://localhost:1", "${HOST:-https://h.example}/mcp"];

/** Mostly valid values, sometimes a near miss: a config is valid only if every field is. */
const mostly = (valid: fc.Arbitrary<unknown>, invalid: fc.Arbitrary<unknown>) => fc.oneof({ weight: 12, arbitrary: valid }, { weight: 1, arbitrary: invalid });

/** Values for one field, by kind. */
function valueArb(key: string, spec: FieldSpec, names: readonly string[]): fc.Arbitrary<unknown> {
  const check: Check = spec.check;
  const wrong = fc.constantFrom<unknown>(null, 7, "7", [], {}, true);
  switch (check.kind) {
    case "string": {
      if (key === "url") return mostly(fc.constantFrom(...URLS), fc.oneof(wrong, fc.constant("")));
      if (spec.oneOf !== undefined) return mostly(fc.constantFrom(...spec.oneOf), fc.oneof(fc.constantFrom("latest", "2025-06-19", ""), wrong));
      return mostly(fc.constantFrom("node", "x y", "${V:-d}", "$${LITERAL}", "a\nb"), fc.oneof(fc.constant(""), wrong));
    }
    case "boolean":
      return mostly(fc.boolean(), wrong);
    case "integer":
    case "number": {
      const top = check.max ?? 100_000;
      return mostly(
        fc.oneof(fc.constantFrom(check.min, top), fc.integer({ min: check.min, max: top })),
        fc.oneof(fc.constantFrom(check.min - 1, check.min + 0.5, top + 1), fc.integer({ min: -5, max: 100_000 }), wrong),
      );
    }
    case "enum":
      return mostly(fc.constantFrom(...check.values), fc.oneof(fc.constantFrom("bogus", "Stdio"), wrong));
    case "string-array": {
      // Fallbacks name other servers only: a missing or own name is the loader's alone.
      if (key === "fallbacks" && names.length === 0) return mostly(fc.constant([]), wrong);
      const items = key === "fallbacks" ? fc.constantFrom(...names) : fc.constantFrom("a", "read_*", "${V:-d}");
      return mostly(fc.array(mostly(items, fc.constantFrom<unknown>("", 3)), { maxLength: 3 }), wrong);
    }
    case "string-map":
      return mostly(
        fc.dictionary(fc.constantFrom("A", "B_C", "x-y"), mostly(fc.constantFrom("v", "${V:-d}", ""), fc.constantFrom("a\r\nb", 3)), { maxKeys: 2 }),
        wrong,
      );
    case "object":
      return mostly(objectArb(check.fields, names), wrong);
    case "server-map":
    case "object-array":
    case "function":
    case "auth":
      return wrong;
  }
}

/** An object of some of the table's JSON fields (of one kind of server, or all), sometimes with a field the table does not know. */
function objectArb(table: FieldTable, names: readonly string[], kind?: "stdio" | "remote"): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, spec] of Object.entries(table)) {
    const otherKind = kind !== undefined && spec.appliesTo !== undefined && spec.appliesTo !== kind;
    if (spec.check.kind !== "function" && spec.check.kind !== "auth" && !otherKind) model[key] = valueArb(key, spec, names);
  }
  return fc
    .tuple(fc.record(model, { requiredKeys: [] }), fc.option(fc.constantFrom("comand", "timeout", "only", "extra"), { freq: 8 }))
    .map(([record, extra]) => ({
      ...record,
      ...(extra !== null ? { [extra]: 1 } : {}),
    }));
}

const serverArb = (names: readonly string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: objectArb(SERVER_FIELDS, names, "stdio").map((entry) => ({ command: "node", ...entry })) },
    { weight: 6, arbitrary: objectArb(SERVER_FIELDS, names, "remote").map((entry) => ({ url: "https://example.com/mcp", ...entry })) },
    { weight: 2, arbitrary: objectArb(SERVER_FIELDS, names) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>("node", null, []) },
  );

const configArb = fc.uniqueArray(fc.constantFrom(...SERVER_NAMES), { maxLength: 3 }).chain((names) =>
  fc
    .record(
      {
        $schema: fc.constant("./mcp.schema.json"),
        separator: mostly(fc.constantFrom("__", ".", "::"), fc.constantFrom<unknown>("", 1)),
        mapKeys: fc.oneof(
          { weight: 12, arbitrary: fc.constantFrom<string[]>(["mcpServers"], ["servers"], ["services"]) },
          { weight: 1, arbitrary: fc.subarray<string>(["mcpServers", "servers", "services"], { minLength: 0, maxLength: 2 }) },
        ),
        entries: fc.tuple(...names.map((name) => serverArb(names.filter((other) => other !== name && other !== "")))),
      },
      { requiredKeys: ["mapKeys", "entries"] },
    )
    .map(({ mapKeys, entries, ...top }) => {
      const map = Object.fromEntries(names.map((name, index) => [name, entries[index]]));
      // JSON, as a file holds it: undefined fields disappear.
      return JSON.parse(JSON.stringify({ ...top, ...Object.fromEntries(mapKeys.map((key) => [key, map])) })) as Record<string, unknown>;
    }),
);

/** The rules the schema's description leaves to the loader; configs that meet one are not compared. */
function loaderOnly(config: Record<string, unknown>): boolean {
  const separator = config.separator;
  for (const map of [config.mcpServers, config.servers, config.services]) {
    if (typeof map !== "object" || map === null) continue;
    for (const [name, entry] of Object.entries(map)) {
      if (typeof separator === "string" && separator !== "" && separator !== "__" && serverNameProblem(name, separator) !== undefined) return true;
      if (typeof entry !== "object" || entry === null) continue;
      const { url, type, restart } = entry as Record<string, unknown>;
      if (typeof url === "string" && /^wss?:/.test(url) && type !== undefined && type !== "websocket") return true;
      const backoff = (restart as { backoff?: Record<string, unknown> } | undefined)?.backoff;
      if (typeof backoff === "object" && backoff !== null) {
        const initial = typeof backoff.initialMs === "number" ? backoff.initialMs : 100;
        const max = typeof backoff.maxMs === "number" ? backoff.maxMs : 30_000;
        if (max < initial) return true;
      }
    }
  }
  return false;
}

describe("schema and loader agree (property)", () => {
  it("on generated configs, valid and invalid", () => {
    let accepted = 0;
    let compared = 0;
    fc.assert(
      fc.property(configArb, (config) => {
        fc.pre(!loaderOnly(config));
        compared++;
        const loader = loaderAccepts(config);
        if (loader) accepted++;
        expect(validate(config), JSON.stringify({ config, errors: validate.errors })).toBe(loader);
      }),
      { numRuns: 150 },
    );
    // Both sides are exercised: some configs pass, most fail somewhere.
    expect(compared).toBeGreaterThan(100);
    expect(accepted).toBeGreaterThan(5);
  });

  it("on server names, with the default separator (the pattern is serverNameProblem's)", () => {
    const pattern = new RegExp(serverNamePattern("__"), "u");
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "_", "-", ".", "\n") }), (name) => {
        expect(pattern.test(name)).toBe(serverNameProblem(name, "__") === undefined);
      }),
      { numRuns: 300 },
    );
    for (const separator of ["::", ".", "-_-", "aa"]) {
      const custom = new RegExp(serverNamePattern(separator), "u");
      for (const name of ["x", "x:", "a::b", "x.", "x-", "x-_", "-_-", "a", "ba", "b"]) {
        expect(custom.test(name), `${name} with ${separator}`).toBe(serverNameProblem(name, separator) === undefined);
      }
    }
  });
});
