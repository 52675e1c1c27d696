/** JSON Schema vocabulary the compiler reads, and small helpers to name schemas in prose. */
import { isObject } from "../../util/guards.js";
import { whole } from "./describe.js";
import { typeOfValue, type JsonSchema } from "./document.js";

/** The object keywords beyond `properties`, `required` and `additionalProperties`: targets differ on each. */
export const OBJECT_CONSTRAINTS = [
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "unevaluatedProperties",
] as const;
export const OBJECT_KEYWORDS = new Set<string>(["properties", "required", "additionalProperties", ...OBJECT_CONSTRAINTS]);
export const ARRAY_KEYWORDS = new Set(["items", "prefixItems", "additionalItems"]);

/** Keywords whose value is one schema, compiled in place when a target keeps them. */
export const SUBSCHEMA_VALUE = new Set(["not", "if", "then", "else", "contains", "unevaluatedItems"]);

/** Every keyword of the JSON Schema vocabularies (others are extensions, dropped without a loss). */
export const KNOWN = new Set([
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "maxLength",
  "minLength",
  "pattern",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxContains",
  "minContains",
  "contains",
  "unevaluatedItems",
  "not",
  "if",
  "then",
  "else",
  "const",
  "enum",
]);

export function typeList(type: unknown): string[] | undefined {
  if (typeof type === "string") return [type];
  if (Array.isArray(type) && type.every((t) => typeof t === "string")) return [...new Set(type)];
  return undefined;
}

/** A schema without `type` that still says what it is: by its enum values, or by its keywords. */
export function inferTypes(node: JsonSchema): string[] | undefined {
  const values = "const" in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (values !== undefined) {
    const types = new Set(
      values.map((v) => typeOfValue(v)).map((t) => (t === "integer" && values.some((v) => typeof v === "number" && !Number.isInteger(v)) ? "number" : t)),
    );
    return [...types];
  }
  if (Object.keys(node).some((k) => OBJECT_KEYWORDS.has(k))) return ["object"];
  if (Object.keys(node).some((k) => ARRAY_KEYWORDS.has(k))) return ["array"];
  if (["minLength", "maxLength", "pattern"].some((k) => k in node)) return ["string"];
  if (["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].some((k) => k in node)) return ["number"];
  return undefined;
}

export function mapSchemas(value: unknown, fn: (schema: unknown, key: string) => JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  if (isObject(value)) for (const [k, v] of Object.entries(value)) out[k] = fn(v, k);
  return out;
}

export function describeMap(extra: unknown): string {
  if (extra === false) return "an empty object";
  if (isObject(extra) && Object.keys(extra).length > 0) return `an object whose values are ${summary(extra)}`;
  return "an object with any keys";
}

/** A short name for a schema in prose: "string", "integer or null", "object". */
export function summary(schema: unknown): string {
  if (!isObject(schema)) return "any value";
  if (typeof schema.$ref === "string") return defName(schema.$ref);
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as unknown[]).map(summary).join(" or ");
  if (Array.isArray(schema.enum)) return `one of ${(schema.enum as unknown[]).map(whole).join(", ")}`;
  const type = typeList(schema.type);
  return type ? type.join(" or ") : "any value";
}

/** The name a reference's definition gets: its last pointer segment, made safe. */
export function defName(ref: string): string {
  if (ref === "#") return "Root";
  const last = decodeURIComponent(ref.split("/").pop() ?? "")
    .replace(/~1/g, "/")
    .replace(/~0/g, "~");
  return last.replace(/[^A-Za-z0-9_.-]/g, "_") || "Def";
}

/** Keywords that carry no validation and no meaning for a model. */
export const DROPPED = new Set([
  "title",
  "$schema",
  "$id",
  "$comment",
  "$anchor",
  "$dynamicAnchor",
  "$vocabulary",
  "readOnly",
  "writeOnly",
  "discriminator",
  "$defs",
  "definitions",
  "nullable",
  "type",
  "description",
]);
/** Keywords beside a union that do not constrain: they stay on the union instead of going into each branch. */
export const ANNOTATION_ONLY = new Set([
  "description",
  "default",
  "examples",
  "example",
  "deprecated",
  "title",
  "$schema",
  "$id",
  "$comment",
  "$anchor",
  "readOnly",
  "writeOnly",
  "discriminator",
  "$defs",
  "definitions",
]);
