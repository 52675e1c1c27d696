/**
 * mcp.schema.json, made from the field tables in config-fields.ts: the JSON Schema (draft 2020-12) that
 * editors use to check and complete an `mcp.json`. `npm run config-schema` writes it (scripts/config-schema.ts);
 * a test fails when the committed file and `configSchema()` differ.
 *
 * The schema says what one field at a time can say, plus the rules between fields that JSON Schema can
 * express (one server map; `command` or `url` and the fields of each kind; unique fallbacks; server names
 * with the default separator; no line breaks in header values). The rest is the loader's alone and is
 * listed in the schema's description (`LOADER_ONLY`). Code-only fields (`auth`, `tools.filter`) are left
 * out: a JSON file cannot hold a function.
 */
import { CONFIG_DEFAULTS, REMOTE_TYPES, SERVER_FIELDS, TOP_LEVEL_FIELDS } from "./config-fields.js";
import type { Check, FieldSpec, FieldTable } from "./config-validate.js";
import { DEFAULT_SEPARATOR } from "./namespacing.js";

export type JsonSchema = { [keyword: string]: unknown };

/** The tables as tables: read by key, they need not keep each field's literal type. */
const SERVER_TABLE: FieldTable = SERVER_FIELDS;
const TOP_LEVEL_TABLE: FieldTable = TOP_LEVEL_FIELDS;

const DRAFT = "https://json-schema.org/draft/2020-12/schema";

/** Where `${VAR}` applies, by the field's kind. */
const SUBSTITUTION: Partial<Record<Check["kind"], string>> = {
  string: "`${VAR}` and `${VAR:-default}` are replaced by environment variables (`$${` is a literal `${`).",
  "string-array": "`${VAR}` and `${VAR:-default}` in each element are replaced by environment variables (`$${` is a literal `${`).",
  "string-map": "`${VAR}` and `${VAR:-default}` in the values (not the names) are replaced by environment variables (`$${` is a literal `${`).",
};

/** What the loader checks and this schema cannot: they span fields, need the environment, or need code. */
const LOADER_ONLY = [
  "each fallback names another server of the file",
  "restart.backoff.maxMs is at least initialMs (the defaults count for the one not given)",
  "url is an absolute http://, https://, ws:// or wss:// URL after substitution, and a ws:// or wss:// URL has type websocket (not for disabled servers)",
  "`${...}` is well formed and its variables are set, and no header value gets a line break from one (not for disabled servers)",
  "with a separator other than the default, server names neither contain it nor end with a part of it",
  "the code-only fields auth and tools.filter (JSON cannot hold a function)",
];

/** The config-schema's root: the whole mcp.json. */
export function configSchema(): JsonSchema {
  const mapKeys = Object.entries(TOP_LEVEL_TABLE)
    .filter(([, spec]) => spec.check.kind === "server-map")
    .map(([key]) => key);
  const namePattern = serverNamePattern(DEFAULT_SEPARATOR);
  return {
    $schema: DRAFT,
    title: "mcp-switchboard mcp.json",
    description: `MCP servers for mcp-switchboard (the mcpServers format, plus its extensions). The loader also checks what this schema cannot: ${LOADER_ONLY.join("; ")}.`,
    type: "object",
    properties: properties(TOP_LEVEL_TABLE, { separator: CONFIG_DEFAULTS.separator }),
    additionalProperties: false,
    oneOf: mapKeys.map((key) => ({ required: [key] })),
    // With the default separator, server names are known in full: none may contain it or run into it.
    if: { properties: { separator: { const: DEFAULT_SEPARATOR } } },
    then: { properties: Object.fromEntries(mapKeys.map((key) => [key, { type: "object", propertyNames: { pattern: namePattern } }])) },
    $defs: { server: serverSchema() },
  };
}

function serverSchema(): JsonSchema {
  const { separator: _separator, ...defaults } = CONFIG_DEFAULTS;
  const fieldsOf = (kind: string) =>
    Object.entries(SERVER_TABLE)
      .filter(([, spec]) => jsonField(spec) && spec.appliesTo === kind)
      .map(([key]) => key);
  const none = (keys: string[]) => Object.fromEntries(keys.map((key) => [key, false]));
  return {
    description: 'One server: "command" to run a stdio server, or "url" to reach a remote one.',
    type: "object",
    properties: properties(SERVER_TABLE, defaults),
    additionalProperties: false,
    oneOf: [
      { required: ["command"], properties: { ...none(fieldsOf("remote")), type: { const: "stdio" } } },
      { required: ["url"], properties: { ...none(fieldsOf("stdio")), type: { enum: [...REMOTE_TYPES] } } },
    ],
  };
}

function jsonField(spec: FieldSpec | undefined): spec is FieldSpec {
  return spec !== undefined && spec.check.kind !== "function" && spec.check.kind !== "auth";
}

function properties(table: FieldTable, defaults: object): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const [key, spec] of Object.entries(table)) {
    if (!jsonField(spec)) continue;
    const fallback: unknown = Object.hasOwn(defaults, key) ? Object.getOwnPropertyDescriptor(defaults, key)?.value : undefined;
    out[key] = fieldSchema(key, spec, fallback);
  }
  return out;
}

function fieldSchema(key: string, spec: FieldSpec, fallback: unknown): JsonSchema {
  const plainDefault = typeof fallback === "string" || (typeof fallback === "number" && Number.isFinite(fallback));
  const description = [
    spec.description,
    spec.substitute ? (SUBSTITUTION[spec.check.kind] ?? "") : "",
    plainDefault ? `Default: ${JSON.stringify(fallback)}.` : "",
  ]
    .filter((part) => part !== "")
    .join(" ");
  const nested = typeof fallback === "object" && fallback !== null ? fallback : {};
  return {
    description,
    ...checkSchema(key, spec, nested),
    ...(plainDefault ? { default: fallback } : {}),
  };
}

function checkSchema(key: string, spec: FieldSpec, defaults: object): JsonSchema {
  const check: Check = spec.check;
  switch (check.kind) {
    case "string":
      if (spec.oneOf !== undefined) return { type: "string", enum: [...spec.oneOf] };
      return { type: "string", ...(check.nonEmpty ? { minLength: 1 } : {}) };
    case "boolean":
      return { type: "boolean" };
    case "integer":
    case "number":
      return { type: check.kind, minimum: check.min, ...(check.max !== undefined ? { maximum: check.max } : {}) };
    case "enum":
      return { type: "string", enum: [...check.values] };
    case "string-array":
      // config.ts refuses a fallback listed twice.
      return { type: "array", items: { type: "string", ...(check.nonEmpty ? { minLength: 1 } : {}) }, ...(key === "fallbacks" ? { uniqueItems: true } : {}) };
    case "string-map":
      // config.ts refuses line breaks in header values (they would inject headers).
      return { type: "object", additionalProperties: { type: "string", ...(key === "headers" ? { pattern: "^[^\\r\\n]*$" } : {}) } };
    case "object":
      return { type: "object", properties: properties(check.fields, defaults), additionalProperties: false };
    case "object-array":
      return { type: "array", items: { type: "object", properties: properties(check.fields, {}), additionalProperties: false } };
    case "server-map":
      return { type: "object", additionalProperties: { $ref: "#/$defs/server" }, propertyNames: { minLength: 1 } };
    case "function":
    case "auth":
      return {};
  }
}

/**
 * Names `serverNameProblem` (namespacing.ts) accepts with `separator`: not empty, without the separator,
 * and not ending with a start of it that would run into it ("x_" with "__": "x___tool" splits as "x" + "_tool").
 */
export function serverNamePattern(separator: string): string {
  // Only the syntax characters: the "u" flag (ajv, editors) refuses other escapes, such as \-.
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const runIns: string[] = [];
  for (let k = 1; k < separator.length; k++) {
    if (separator.slice(k) === separator.slice(0, separator.length - k)) runIns.push(escape(separator.slice(0, k)));
  }
  const end = runIns.length > 0 ? `(?![\\s\\S]*(?:${runIns.join("|")})$)` : "";
  return `^(?![\\s\\S]*${escape(separator)})${end}[\\s\\S]+$`;
}
