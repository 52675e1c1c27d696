/**
 * The shape rules around the compiler: nullability in each target's spelling, OpenAI strict objects,
 * its size limits, and a top level that every provider takes (one object, no alternatives).
 */
import { isArray, isObject } from "../../util/guards.js";
import type { Compiler } from "./compile.js";
import { sameJson, type JsonSchema, type SchemaDocument } from "./document.js";
import { mergeAllOf } from "./merge.js";
import { OPENAI_STRICT_LIMITS, type TargetProfile } from "./targets.js";

const isNullType = (s: unknown) => isObject(s) && s.type === "null";

/** The schema that also accepts null, spelled the target's way. */
export function withNull(schema: JsonSchema, profile: TargetProfile): JsonSchema {
  // Gemini's `nullable` belongs beside a `type`: a union takes it on each alternative.
  if (profile.nullableKeyword)
    return isArray(schema.anyOf) ? { ...schema, anyOf: schema.anyOf.map((b) => (isObject(b) ? { ...b, nullable: true } : b)) } : { ...schema, nullable: true };
  if (typeof schema.$ref === "string" || "const" in schema) {
    const { description, ...rest } = schema;
    return { anyOf: [rest, { type: "null" }], ...(description === undefined ? {} : { description }) };
  }
  if (isArray(schema.anyOf)) return schema.anyOf.some(isNullType) ? schema : { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  const out = { ...schema };
  if (typeof out.type === "string") out.type = out.type === "null" ? "null" : [out.type, "null"];
  else if (isArray(out.type) && !out.type.includes("null")) out.type = [...out.type, "null"];
  if (isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

/**
 * The loss of closing an object that does not mention `additionalProperties`. It names no key the
 * model could know of, so `strict: "auto"` takes a schema whose only losses are these as convertible.
 */
export const CLOSED_UNSPECIFIED = "an object open to other keys (additionalProperties unspecified) is closed";

/**
 * The loss of making an optional property that already takes null and has no default required. The
 * schema offers null as a value for "nothing here", and with no default there is no other meaning
 * that leaving the key out could have: Apollo's MCP server spells GraphQL nullability as
 * `anyOf: [T, null]` precisely so that clients that require every property can still send null. So
 * `strict: "auto"` takes this loss as convertible too.
 */
export const NULL_FOR_ABSENT = "an optional property that already takes null can no longer be left out (null is sent instead)";

/** Losses that `strict: "auto"` accepts: they name no value the model could mean and not send. */
const AUTO_TOLERATED = [CLOSED_UNSPECIFIED, NULL_FOR_ABSENT];

/** Whether `strict: "auto"` sends a schema with these losses strict. */
export function strictForAuto(losses: readonly string[]): boolean {
  return losses.every((loss) => AUTO_TOLERATED.some((tolerated) => loss.endsWith(`: ${tolerated}`)));
}

/**
 * OpenAI strict objects: closed, and every property required. An optional property becomes nullable
 * and the runners read its `null` as "left out". One that already took null keeps its meaning only
 * when null is also its default (Pydantic's `x: T | None = None`); otherwise leaving it out is lost.
 */
export function strictObject(c: Compiler, node: JsonSchema, out: JsonSchema, path: string): JsonSchema {
  const properties = out.properties as JsonSchema;
  const extra = node.additionalProperties;
  if (extra !== false) c.loss(path, extra === undefined ? CLOSED_UNSPECIFIED : "an object open to other keys is closed");
  const required = Array.isArray(node.required) ? (node.required as unknown[]) : [];
  const source = isObject(node.properties) ? node.properties : {};
  for (const key of Object.keys(properties)) {
    if (required.includes(key)) continue;
    const original = source[key];
    if (!c.doc.accepts(original, "null")) {
      properties[key] = withNull(properties[key] as JsonSchema, c.profile);
      continue;
    }
    const fallback = defaultOf(c.doc, original);
    if (fallback === undefined) c.loss(`${path}.${key}`, NULL_FOR_ABSENT);
    else if (fallback !== null)
      c.loss(`${path}.${key}`, "an optional property with a default that already takes null can no longer be left out (null is sent, not the default)");
  }
  out.required = Object.keys(properties);
  out.additionalProperties = false;
  return out;
}

function defaultOf(doc: SchemaDocument, node: unknown): unknown {
  if (!isObject(node)) return undefined;
  return doc.deref(node).node.default;
}

/** Whether a strict schema is within OpenAI's strict-mode limits (else the API refuses it). */
export function strictWithinLimits(schema: JsonSchema): boolean {
  let properties = 0;
  let enumValues = 0;
  let strings = 0;
  let deepest = 0;
  const visit = (node: unknown, depth: number): void => {
    if (!isObject(node)) return;
    if (isObject(node.properties)) {
      deepest = Math.max(deepest, depth + 1);
      for (const [key, value] of Object.entries(node.properties)) {
        properties++;
        strings += key.length;
        visit(value, depth + 1);
      }
    }
    if (Array.isArray(node.enum)) {
      enumValues += node.enum.length;
      for (const value of node.enum) if (typeof value === "string") strings += value.length;
    }
    if (isObject(node.$defs)) {
      for (const [key, value] of Object.entries(node.$defs)) {
        strings += key.length;
        visit(value, depth);
      }
    }
    if (isObject(node.items)) visit(node.items, depth);
    if (Array.isArray(node.anyOf)) for (const branch of node.anyOf) visit(branch, depth);
  };
  visit(schema, 0);
  return (
    properties <= OPENAI_STRICT_LIMITS.maxProperties &&
    deepest <= OPENAI_STRICT_LIMITS.maxNesting &&
    enumValues <= OPENAI_STRICT_LIMITS.maxEnumValues &&
    strings <= OPENAI_STRICT_LIMITS.maxTotalStringLength
  );
}

/**
 * Providers take one object at the top: no `anyOf`/`oneOf` there (Anthropic refuses it, OpenAI
 * wants `type: "object"`). Alternatives of objects become one object with every property, requiring
 * only what all of them require; the description lists the alternatives. A loss, said so.
 */
export function mergeRootAlternatives(doc: SchemaDocument, root: JsonSchema, losses: string[]): JsonSchema {
  let node = doc.deref(root).node;
  if (Array.isArray(node.allOf)) node = mergeAllOf(node, doc);
  const keyword = Array.isArray(node.anyOf) ? "anyOf" : Array.isArray(node.oneOf) ? "oneOf" : undefined;
  if (keyword === undefined) return node;
  const { [keyword]: raw, ...rest } = node;
  const branches = (raw as unknown[]).filter(isObject).map((b) => {
    const resolved = doc.deref(b).node;
    return Array.isArray(resolved.allOf) ? mergeAllOf(resolved, doc) : resolved;
  });
  const options = new Map<string, unknown[]>();
  for (const [key, schema] of Object.entries(isObject(rest.properties) ? rest.properties : {})) options.set(key, [schema]);
  const variants: unknown[][] = [];
  for (const branch of branches) {
    const own = isObject(branch.properties) ? branch.properties : {};
    for (const [key, schema] of Object.entries(own)) {
      const known = options.get(key) ?? [];
      if (!known.some((o) => sameJson(o, schema))) options.set(key, [...known, schema]);
    }
    variants.push(Object.keys(own));
  }
  const properties: JsonSchema = {};
  for (const [key, list] of options) properties[key] = list.length === 1 ? list[0] : { anyOf: list };
  const requiredOf = (n: JsonSchema) => (Array.isArray(n.required) ? (n.required as string[]) : []);
  const first = branches[0];
  const shared = first === undefined ? [] : requiredOf(first).filter((key) => branches.every((b) => requiredOf(b).includes(key)));
  const required = [...new Set([...requiredOf(rest), ...shared])];
  const alternatives = variants.map((keys) => `{${keys.join(", ")}}`).join(" or ");
  losses.push(`(top level): ${keyword} of ${branches.length} alternatives is offered as one object with every property (${alternatives})`);
  const description = [rest.description, `Give the properties of one of: ${alternatives}.`].filter(Boolean).join(" ");
  return { ...rest, type: "object", properties, ...(required.length > 0 ? { required } : {}), description };
}

const EMPTY_ROOT_KEYS = new Set(["type", "$schema", "$id", "title", "description", "properties", "required", "additionalProperties"]);

/** A schema for a tool that takes no arguments: `{}`, `{ type: "object" }`, no or empty `properties`. */
export function takesNothing(root: JsonSchema): boolean {
  if (!Object.keys(root).every((key) => EMPTY_ROOT_KEYS.has(key))) return false;
  if (root.type !== undefined && root.type !== "object") return false;
  if (root.properties !== undefined && !(isObject(root.properties) && Object.keys(root.properties).length === 0)) return false;
  if (root.required !== undefined && !(isArray(root.required) && root.required.length === 0)) return false;
  return root.additionalProperties === undefined || root.additionalProperties === false;
}
