/**
 * `allOf` folded into one schema: providers show models one object, not an intersection to work out.
 * Keywords that combine exactly (properties, required, type, enum, bounds) are combined; what cannot
 * be combined stays in a shorter `allOf` for the compiler to keep or describe.
 */
import { isArray, isObject } from "../../util/guards.js";
import { sameJson, type JsonSchema, type SchemaDocument } from "./document.js";

const ANNOTATIONS = new Set(["description", "title", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "discriminator"]);
const LOWER_BOUNDS = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"]);
const UPPER_BOUNDS = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"]);

/** The node with its `allOf` merged in as far as that keeps the meaning; `allOf` remains for the rest. */
export function mergeAllOf(node: JsonSchema, doc: SchemaDocument, depth = 0): JsonSchema {
  if (!Array.isArray(node.allOf) || depth > 16) return node;
  const { allOf, ...base } = node;
  let merged: JsonSchema = base;
  const leftover: unknown[] = [];
  for (const branch of allOf as unknown[]) {
    if (branch === true) continue;
    if (!isObject(branch)) {
      leftover.push(branch);
      continue;
    }
    const resolved = doc.deref(branch);
    if (resolved.unresolved !== undefined) {
      leftover.push(branch);
      continue;
    }
    const flat = mergeAllOf(resolved.node, doc, depth + 1);
    merged = mergeTwo(merged, flat, leftover);
  }
  if (leftover.length > 0) merged.allOf = [...((merged.allOf as unknown[]) ?? []), ...leftover];
  return merged;
}

function mergeTwo(a: JsonSchema, b: JsonSchema, leftover: unknown[]): JsonSchema {
  const out: JsonSchema = { ...a };
  const rest: JsonSchema = {};
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out)) {
      out[key] = value;
      continue;
    }
    const mine = out[key];
    if (sameJson(mine, value) || ANNOTATIONS.has(key)) continue;
    if (key === "allOf" && isArray(mine) && isArray(value)) out.allOf = [...mine, ...value];
    else if (key === "type") {
      const both = intersectTypes(mine, value);
      if (both === undefined) rest.type = value;
      else out.type = both;
    } else if (key === "properties" && isObject(mine) && isObject(value)) {
      const properties: JsonSchema = { ...mine };
      for (const [name, schema] of Object.entries(value)) properties[name] = name in properties ? { allOf: [properties[name], schema] } : schema;
      out.properties = properties;
    } else if (key === "required" && isArray(mine) && isArray(value)) out.required = [...new Set([...mine, ...value])];
    else if (key === "enum" && isArray(mine) && isArray(value)) out.enum = mine.filter((v) => value.some((w) => sameJson(v, w)));
    else if (LOWER_BOUNDS.has(key) && typeof mine === "number" && typeof value === "number") out[key] = Math.max(mine, value);
    else if (UPPER_BOUNDS.has(key) && typeof mine === "number" && typeof value === "number") out[key] = Math.min(mine, value);
    else if (key === "additionalProperties" && (mine === false || value === false)) {
      // A closed branch forbids what the other declares beyond its own properties: keep both closed
      // shapes apart unless the other adds nothing new.
      const closedProps = Object.keys((mine === false ? a.properties : b.properties) ?? {});
      const otherProps = Object.keys((mine === false ? b.properties : a.properties) ?? {});
      if (otherProps.every((p) => closedProps.includes(p))) out.additionalProperties = false;
      else rest.additionalProperties = value;
    } else if ((key === "items" || key === "additionalProperties") && isObject(mine) && isObject(value)) out[key] = { allOf: [mine, value] };
    else rest[key] = value;
  }
  if (Object.keys(rest).length > 0) leftover.push(rest);
  return out;
}

function intersectTypes(a: unknown, b: unknown): string | string[] | undefined {
  const list = (t: unknown) => (Array.isArray(t) ? (t as string[]) : [t as string]);
  const left = list(a);
  const right = list(b);
  const both = new Set<string>();
  for (const t of left) {
    if (right.includes(t)) both.add(t);
    else if (t === "integer" && right.includes("number")) both.add("integer");
    else if (t === "number" && right.includes("integer")) both.add("integer");
  }
  if (both.size === 0) return undefined;
  const types = [...both];
  return types.length === 1 ? types[0] : types;
}
