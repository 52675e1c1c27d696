/**
 * `x-mcp-header` (2026-07-28, HTTP): a tool's input property may ask to be mirrored into an
 * `Mcp-Param-<Name>` header, so gateways can route without parsing bodies. The declaration rules are
 * strict; a tool that breaks them must not be called over HTTP, so it is dropped from `tools/list`.
 */
import { encodeHeaderValue } from "./modern-wire.js";

export interface HeaderParam {
  /** The header name after `Mcp-Param-`. */
  name: string;
  /** Property path from the arguments object. */
  path: string[];
}

export type HeaderDeclarations = { ok: true; params: HeaderParam[] } | { ok: false; problem: string };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const MIRRORABLE = new Set(["string", "integer", "boolean"]);
/** Keywords whose subschemas are not plain `properties` paths: a declaration below them is invalid. */
const OTHER_SUBSCHEMAS = [
  "items",
  "prefixItems",
  "additionalProperties",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "unevaluatedProperties",
  "propertyNames",
];
/** Keywords holding a map of name -> subschema (a declaration in them is reached through `$ref` or patterns). */
const SUBSCHEMA_MAPS = ["$defs", "definitions", "patternProperties", "dependentSchemas"];

/** Reads a tool's `x-mcp-header` declarations and checks them. */
export function headerDeclarations(inputSchema: unknown): HeaderDeclarations {
  const params: HeaderParam[] = [];
  const seen = new Set<string>();
  let problem: string | undefined;
  const walk = (node: unknown, path: string[] | undefined, where: string): void => {
    if (problem !== undefined || typeof node !== "object" || node === null) return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, undefined, `${where}[${index}]`));
      return;
    }
    const schema = node as Record<string, unknown>;
    const declared = schema["x-mcp-header"];
    if (declared !== undefined) {
      if (path === undefined || path.length === 0) problem = `x-mcp-header at ${where} is not reachable through "properties" alone`;
      else if (typeof declared !== "string" || !TOKEN.test(declared)) problem = `x-mcp-header ${JSON.stringify(declared)} at ${where} is not an HTTP token`;
      else if (typeof schema.type !== "string" || !MIRRORABLE.has(schema.type))
        problem = `x-mcp-header "${declared}" at ${where} is on type ${JSON.stringify(schema.type)}; only string, integer and boolean may be mirrored`;
      else if (seen.has(declared.toLowerCase())) problem = `x-mcp-header "${declared}" is declared twice (names are case-insensitive)`;
      else {
        seen.add(declared.toLowerCase());
        params.push({ name: declared, path });
      }
      if (problem !== undefined) return;
    }
    const properties = schema.properties;
    if (typeof properties === "object" && properties !== null) {
      for (const [key, child] of Object.entries(properties)) walk(child, path === undefined ? undefined : [...path, key], `${where}.properties.${key}`);
    }
    for (const keyword of OTHER_SUBSCHEMAS) if (keyword in schema) walk(schema[keyword], undefined, `${where}.${keyword}`);
    for (const keyword of SUBSCHEMA_MAPS) {
      const map = schema[keyword];
      if (typeof map === "object" && map !== null) for (const [key, child] of Object.entries(map)) walk(child, undefined, `${where}.${keyword}.${key}`);
    }
  };
  walk(inputSchema, [], "inputSchema");
  return problem === undefined ? { ok: true, params } : { ok: false, problem };
}

/** The `Mcp-Param-*` headers for one call. Absent and null values send no header. */
export function paramHeaders(params: readonly HeaderParam[], args: Record<string, unknown> | undefined, into: Record<string, string>): void {
  for (const param of params) {
    let value: unknown = args;
    for (const key of param.path) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined || value === null) continue;
    let text: string;
    if (typeof value === "string") text = value;
    else if (typeof value === "boolean") text = value ? "true" : "false";
    else if (typeof value === "number" && Number.isSafeInteger(value)) text = String(value);
    else continue; // not of the declared kind: the server validates the arguments and says so
    into[`mcp-param-${param.name.toLowerCase()}`] = encodeHeaderValue(text);
  }
}
