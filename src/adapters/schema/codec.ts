/**
 * Arguments between a tool's original schema and a provider's form of it. The way back (`decode`)
 * reads only the original schema, so the runners need no memory of how the tools were converted:
 * - `null` for a property the original leaves optional and does not let be null means "left out"
 *   (OpenAI strict mode makes every property required and the optional ones nullable);
 * - a string where the original takes no string is JSON text (what a target could not describe:
 *   maps, open objects) and is parsed back.
 * `encode` is the other direction, for a given converted schema: tests use it to check that every
 * value of the original has a form the provider accepts, and that it comes back unchanged.
 */
import { isArray, isObject } from "../../util/guards.js";
import { JSON_TEXT_NOTE } from "./compile.js";
import { SchemaDocument, sameJson, typeOfValue, type JsonSchema } from "./document.js";

const MAX_DEPTH = 64;

/** Whether a value fits a schema's structure: types, enums, consts, required keys, closed objects, items. */
export function fits(doc: SchemaDocument, schema: unknown, value: unknown, depth = 0): boolean {
  if (schema === false) return false;
  if (!isObject(schema) || depth > MAX_DEPTH) return true;
  const { node } = doc.deref(schema);
  const nullAllowed = value === null && node.nullable === true;
  const types = typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : undefined;
  if (types !== undefined && !nullAllowed) {
    const t = typeOfValue(value);
    if (!types.some((k) => k.toLowerCase() === t || (k.toLowerCase() === "number" && t === "integer"))) return false;
  }
  if (Array.isArray(node.enum) && !nullAllowed && !node.enum.some((v) => sameJson(v, value))) return false;
  if ("const" in node && !sameJson(node.const, value)) return false;
  if (Array.isArray(node.anyOf) && !nullAllowed && !node.anyOf.some((b) => fits(doc, b, value, depth + 1))) return false;
  if (Array.isArray(node.oneOf) && !node.oneOf.some((b) => fits(doc, b, value, depth + 1))) return false;
  if (Array.isArray(node.allOf) && !node.allOf.every((b) => fits(doc, b, value, depth + 1))) return false;
  if (isObject(value)) {
    const properties = isObject(node.properties) ? node.properties : {};
    if (Array.isArray(node.required) && !node.required.every((k) => typeof k !== "string" || Object.hasOwn(value, k))) return false;
    for (const [key, item] of Object.entries(value)) {
      if (Object.hasOwn(properties, key)) {
        if (!fits(doc, properties[key], item, depth + 1)) return false;
      } else if (node.additionalProperties === false && !matchesPattern(node, key)) return false;
      else if (isObject(node.additionalProperties) && !fits(doc, node.additionalProperties, item, depth + 1)) return false;
    }
  }
  if (Array.isArray(value)) {
    const prefix = isArray(node.prefixItems) ? node.prefixItems : isArray(node.items) ? node.items : [];
    const rest = Array.isArray(node.items) ? undefined : node.items;
    for (let i = 0; i < value.length; i++) {
      const schemaAt = i < prefix.length ? prefix[i] : rest;
      if (!fits(doc, schemaAt, value[i], depth + 1)) return false;
    }
  }
  return true;
}

function matchesPattern(node: JsonSchema, key: string): boolean {
  if (!isObject(node.patternProperties)) return false;
  return Object.keys(node.patternProperties).some((pattern) => safeRegExp(pattern)?.test(key) === true);
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, "u");
  } catch {
    return undefined;
  }
}

/** A provider's arguments, turned back into what the original schema accepts. */
export function decodeArguments(doc: SchemaDocument, value: unknown): unknown {
  return decode(doc, doc.root, value, 0);
}

function decode(doc: SchemaDocument, schema: unknown, value: unknown, depth: number): unknown {
  if (!isObject(schema) || depth > MAX_DEPTH || value === undefined) return value;
  const { node } = doc.deref(schema);
  if (typeof value === "string" && !doc.accepts(node, "string")) {
    const parsed = parseJson(value);
    if (parsed.ok && typeof parsed.value !== "string") return decode(doc, node, parsed.value, depth + 1);
    return value;
  }
  let out: unknown = value;
  if (isObject(out)) out = decodeObject(doc, node, out, depth);
  else if (Array.isArray(out)) {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
    const rest = Array.isArray(node.items) ? node.additionalItems : node.items;
    out = out.map((item, i) => decode(doc, i < prefix.length ? prefix[i] : rest, item, depth + 1));
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    const branches = node[keyword];
    if (!Array.isArray(branches)) continue;
    const current = out;
    for (const branch of branches) {
      const candidate = decode(doc, branch, current, depth + 1);
      if (fits(doc, branch, candidate)) {
        out = candidate;
        break;
      }
    }
  }
  if (Array.isArray(node.allOf)) for (const branch of node.allOf) out = decode(doc, branch, out, depth + 1);
  return out;
}

function decodeObject(doc: SchemaDocument, node: JsonSchema, value: Record<string, unknown>, depth: number): Record<string, unknown> {
  const properties = isObject(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? node.required : [];
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const declared = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (item === null && declared !== undefined && !required.includes(key) && !doc.accepts(declared, "null")) continue;
    const schema = declared ?? (isObject(node.additionalProperties) ? node.additionalProperties : undefined);
    setOwn(out, key, schema === undefined ? item : decode(doc, schema, item, depth + 1));
  }
  return out;
}

/**
 * `out[key] = value`, except that a key named `__proto__` (an ordinary own key in parsed JSON) stays a
 * key: assigning it would set the copy's prototype instead and the argument would vanish.
 */
function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** A value of the original schema in the form a converted schema asks for (the inverse of `decode`). */
export function encodeArguments(converted: SchemaDocument, value: unknown): unknown {
  return encode(converted, converted.root, value, 0);
}

function encode(doc: SchemaDocument, schema: unknown, value: unknown, depth: number): unknown {
  if (!isObject(schema) || depth > MAX_DEPTH) return value;
  const { node } = doc.deref(schema);
  // The compiler marks the values it takes as JSON text in their description.
  if (typeof value !== "string" && value !== null && typeof node.description === "string" && node.description.includes(JSON_TEXT_NOTE)) {
    return JSON.stringify(value);
  }
  for (const keyword of ["anyOf", "oneOf"]) {
    const branches = node[keyword];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      const candidate = encode(doc, branch, value, depth + 1);
      if (fits(doc, branch, candidate)) return candidate;
    }
    return value;
  }
  if (isObject(value)) {
    const properties = isObject(node.properties) ? node.properties : {};
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const declared = Object.hasOwn(properties, key) ? properties[key] : isObject(node.additionalProperties) ? node.additionalProperties : undefined;
      setOwn(out, key, encode(doc, declared, item, depth + 1));
    }
    if (Array.isArray(node.required)) for (const key of node.required) if (typeof key === "string" && !Object.hasOwn(out, key)) out[key] = null;
    return out;
  }
  if (Array.isArray(value)) {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : [];
    return value.map((item, i) => encode(doc, i < prefix.length ? prefix[i] : node.items, item, depth + 1));
  }
  return value;
}
