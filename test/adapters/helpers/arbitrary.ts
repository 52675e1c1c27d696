/**
 * fast-check arbitraries from JSON Schema, for the keywords the corpus uses: types, enum/const,
 * properties/required/additionalProperties, items/prefixItems/draft-07 tuples, min/max bounds,
 * anyOf/oneOf/allOf, local `$ref` (recursion bounded by depth), formats and patterns. Values it
 * makes are filtered through Ajv against the original schema, so every one is valid; the generator
 * only has to hit the valid space often.
 */
import fc from "fast-check";
import { SchemaDocument, type JsonSchema } from "../../../src/adapters/schema/document.js";
import { mergeAllOf } from "../../../src/adapters/schema/merge.js";

const MAX_DEPTH = 4;
const isObj = (v: unknown): v is JsonSchema => typeof v === "object" && v !== null && !Array.isArray(v);

export function arbitraryFor(root: JsonSchema): fc.Arbitrary<unknown> {
  const doc = new SchemaDocument(root);
  return build(doc, root, 0);
}

function build(doc: SchemaDocument, schema: unknown, depth: number): fc.Arbitrary<unknown> {
  if (schema === true || schema === undefined) return anyJson();
  if (!isObj(schema)) return fc.constant(null);
  let node = schema;
  if (typeof node.$ref === "string") {
    node = doc.deref(node).node;
    depth++;
  }
  if (Array.isArray(node.allOf)) node = mergeAllOf(node, doc);
  if (Array.isArray(node.allOf)) {
    const { allOf: _a, ...rest } = node;
    node = rest;
  }
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const branches = node[keyword];
    if (!Array.isArray(branches)) continue;
    const { [keyword]: _b, ...siblings } = node;
    // Past the depth bound, only alternatives that do not recurse (null, scalars) are generated.
    const pick = depth >= MAX_DEPTH ? branches.filter((b) => !refersDeeper(b)) : branches;
    return fc.oneof(
      ...(pick.length > 0 ? pick : branches.slice(0, 1)).map((b) => {
        const deeper = isObj(b) && typeof b.$ref === "string";
        const resolved = deeper ? doc.deref(b).node : b;
        const merged = Object.keys(siblings).length > 0 && isObj(resolved) ? mergeAllOf({ allOf: [siblings, resolved] }, doc) : resolved;
        return build(doc, merged, deeper ? depth + 1 : depth);
      }),
    );
  }
  if ("const" in node) return fc.constant(node.const);
  if (Array.isArray(node.enum)) return fc.constantFrom(...(node.enum as unknown[]));
  const types = typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? (node.type as string[]) : inferType(node);
  if (types === undefined) return anyJson();
  return fc.oneof(...types.map((type) => byType(doc, node, type, depth)));
}

function refersDeeper(schema: unknown): boolean {
  return JSON.stringify(schema ?? null).includes('"$ref"');
}

function inferType(node: JsonSchema): string[] | undefined {
  if ("properties" in node || "additionalProperties" in node || "required" in node) return ["object"];
  if ("items" in node || "prefixItems" in node) return ["array"];
  return undefined;
}

function byType(doc: SchemaDocument, node: JsonSchema, type: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: bound(node, "min", -1000), max: bound(node, "max", 1000) });
    case "number":
      return fc
        .integer({ min: bound(node, "min", -1000) * 4, max: bound(node, "max", 1000) * 4 })
        .map((n) => n / 4)
        .filter((n) => n >= bound(node, "min", -1000) && n <= bound(node, "max", 1000));
    case "string":
      return stringArb(node);
    case "array":
      return arrayArb(doc, node, depth);
    case "object":
      return objectArb(doc, node, depth);
    default:
      return anyJson();
  }
}

function bound(node: JsonSchema, side: "min" | "max", fallback: number): number {
  const inclusive = side === "min" ? node.minimum : node.maximum;
  const exclusive = side === "min" ? node.exclusiveMinimum : node.exclusiveMaximum;
  if (typeof exclusive === "number") return side === "min" ? Math.min(exclusive + 1, 1e6) : Math.max(exclusive - 1, -1e6);
  if (typeof inclusive === "number") return Math.max(-1e6, Math.min(1e6, inclusive));
  return fallback;
}

function stringArb(node: JsonSchema): fc.Arbitrary<string> {
  const minLength = typeof node.minLength === "number" ? node.minLength : 0;
  const maxLength = typeof node.maxLength === "number" ? Math.min(node.maxLength, minLength + 12) : minLength + 12;
  if (typeof node.pattern === "string")
    return fc.stringMatching(new RegExp(node.pattern)).filter((s) => s.length >= minLength && s.length <= ((node.maxLength as number) ?? Infinity));
  switch (node.format) {
    case "date-time":
      return fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString());
    case "date":
      return fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case "time":
      return fc.date({ min: new Date("2000-01-01"), max: new Date("2000-01-02"), noInvalidDate: true }).map((d) => d.toISOString().slice(11, 19));
    case "email":
      return fc.emailAddress();
    case "uri":
      return fc.webUrl();
    case "uuid":
      return fc.uuid();
    case "ipv4":
      return fc.ipV4();
    case "duration":
      return fc.integer({ min: 1, max: 90 }).map((n) => `P${n}D`);
    default:
      return fc.string({ minLength, maxLength });
  }
}

function arrayArb(doc: SchemaDocument, node: JsonSchema, depth: number): fc.Arbitrary<unknown[]> {
  const tuple = Array.isArray(node.items) ? (node.items as unknown[]) : Array.isArray(node.prefixItems) ? (node.prefixItems as unknown[]) : undefined;
  if (tuple !== undefined) return fc.tuple(...tuple.map((item) => build(doc, item, depth)));
  const minLength = typeof node.minItems === "number" ? node.minItems : 0;
  const cap = depth >= MAX_DEPTH ? minLength : minLength + 3;
  const maxLength = typeof node.maxItems === "number" ? Math.min(node.maxItems, cap) : cap;
  if (maxLength === 0) return fc.constant([]);
  const items = build(doc, node.items, depth);
  if (node.uniqueItems === true) return fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) });
  return fc.array(items, { minLength, maxLength });
}

function objectArb(doc: SchemaDocument, node: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = isObj(node.properties) ? node.properties : {};
  const required = Array.isArray(node.required) ? (node.required as string[]) : [];
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, schema] of Object.entries(properties)) {
    if (depth >= MAX_DEPTH && !required.includes(key)) continue;
    shape[key] = build(doc, schema, depth);
  }
  for (const key of required) shape[key] ??= anyJson();
  const declared = fc.record(shape, { requiredKeys: required.filter((k) => k in shape) });
  const extra = node.additionalProperties;
  if (extra === false || depth >= MAX_DEPTH) return declared;
  const values = isObj(extra) ? build(doc, extra, depth + 1) : anyJson();
  const extras = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !(k in properties) && k !== "__proto__"),
    values,
    { maxKeys: 2 },
  );
  return fc.tuple(declared, extras).map(([d, e]) => ({ ...e, ...d }));
}

function anyJson(): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
}
