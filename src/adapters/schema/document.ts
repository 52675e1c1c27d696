/**
 * One input schema as a document: local `$ref` pointers resolved against its root (`#/$defs/X`,
 * draft-07 `#/definitions/X`, and zod-to-json-schema's `#/properties/...` pointers alike), and which
 * of them are recursive. External references cannot be fetched here: they count as unresolvable.
 */
import { isArray, isObject } from "../../util/guards.js";

export type JsonSchema = Record<string, unknown>;

/** The JSON types a schema can name. */
export const JSON_TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"] as const;
export type JsonType = (typeof JSON_TYPES)[number];

export class SchemaDocument {
  private recursiveRefs: Set<string> | undefined;

  constructor(readonly root: JsonSchema) {}

  /** The schema a local reference points at, or undefined (external, malformed or dangling). */
  target(ref: string): JsonSchema | undefined {
    if (!ref.startsWith("#")) return undefined;
    let pointer: string;
    try {
      pointer = decodeURIComponent(ref.slice(1));
    } catch {
      return undefined;
    }
    if (pointer === "") return this.root;
    if (!pointer.startsWith("/")) return undefined;
    let node: unknown = this.root;
    for (const raw of pointer.slice(1).split("/")) {
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(node)) node = /^(0|[1-9]\d*)$/.test(token) ? node[Number(token)] : undefined;
      else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
      else return undefined;
    }
    if (node === true) return {};
    if (node === false) return { not: {} };
    return isObject(node) ? node : undefined;
  }

  /** References that can reach themselves (a tree, a linked list, mutually recursive unions). */
  isRecursive(ref: string): boolean {
    this.recursiveRefs ??= findRecursiveRefs(this);
    return this.recursiveRefs.has(ref);
  }

  /**
   * Follows a node's `$ref` chain (bounded: a chain that loops gives up) and lays the referring
   * node's other keywords over the target, as 2020-12 reads `$ref` with siblings. Annotations on the
   * outside win (Pydantic puts a field's description and default beside its `$ref`).
   */
  deref(node: JsonSchema): { node: JsonSchema; unresolved?: string } {
    let current = node;
    for (let hops = 0; typeof current.$ref === "string" && hops < 32; hops++) {
      const ref = current.$ref;
      const target = this.target(ref);
      if (target === undefined) return { node: current, unresolved: ref };
      const { $ref: _ref, ...siblings } = current;
      current = layer(target, siblings);
    }
    return { node: current };
  }

  /** The types a schema may accept (an over-approximation: keywords that narrow within a type are ignored). */
  typesOf(node: unknown, depth = 0): Set<JsonType> {
    if (node === true || !isObject(node)) return new Set(node === false ? [] : JSON_TYPES);
    if (depth > 32) return new Set(JSON_TYPES);
    const resolved = this.deref(node).node;
    let types = new Set<JsonType>(JSON_TYPES);
    const narrow = (allowed: Iterable<JsonType>) => {
      const keep = new Set(allowed);
      // "integer" is a kind of "number": a number type admits integers and the other way round.
      if (keep.has("number")) keep.add("integer");
      types = new Set([...types].filter((t) => keep.has(t) || (t === "number" && keep.has("integer"))));
    };
    if (typeof resolved.type === "string") narrow([resolved.type as JsonType]);
    else if (Array.isArray(resolved.type)) narrow(resolved.type as JsonType[]);
    if (resolved.nullable === true && types.size < JSON_TYPES.length) types.add("null");
    if ("const" in resolved) narrow([typeOfValue(resolved.const)]);
    if (Array.isArray(resolved.enum)) narrow(resolved.enum.map(typeOfValue));
    for (const keyword of ["anyOf", "oneOf"]) {
      const branches = resolved[keyword];
      if (Array.isArray(branches)) {
        const union = new Set<JsonType>();
        for (const branch of branches) for (const t of this.typesOf(branch, depth + 1)) union.add(t);
        narrow(union);
      }
    }
    if (Array.isArray(resolved.allOf)) for (const branch of resolved.allOf) narrow(this.typesOf(branch, depth + 1));
    return types;
  }

  accepts(node: unknown, type: JsonType): boolean {
    return this.typesOf(node).has(type);
  }
}

/** `base` with `over`'s keywords on top; `allOf` branches of both are kept. */
export function layer(base: JsonSchema, over: JsonSchema): JsonSchema {
  if (Object.keys(over).length === 0) return base;
  const out: JsonSchema = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (key === "allOf" && isArray(base.allOf) && isArray(value)) out.allOf = [...base.allOf, ...value];
    else if (VALIDATING_SIBLINGS.has(key) && key in base && !sameJson(base[key], value)) out.allOf = [...((out.allOf as unknown[]) ?? []), { [key]: value }];
    else out[key] = value;
  }
  return out;
}

/** Keywords that constrain instances: two different values of one of them must both hold. */
const VALIDATING_SIBLINGS = new Set([
  "type",
  "properties",
  "required",
  "items",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "additionalProperties",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
]);

export function typeOfValue(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string" || typeof value === "boolean" || typeof value === "object") return typeof value as JsonType;
  return "null";
}

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameJson((a as JsonSchema)[k], (b as JsonSchema)[k]));
}

/** Keywords whose values are schemas, lists of schemas, or maps of schemas. */
export const SUBSCHEMA_KEYWORDS = {
  single: [
    "items",
    "additionalProperties",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
  ],
  list: ["anyOf", "oneOf", "allOf", "prefixItems"],
  map: ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"],
} as const;

/**
 * Every direct subschema of a node that applies to instances (an `items` array, draft-07's tuple
 * form, included); definition maps are reached through the references that use them.
 */
export function childrenOf(node: JsonSchema): unknown[] {
  const out: unknown[] = [];
  for (const key of SUBSCHEMA_KEYWORDS.single) if (key in node) out.push(...(Array.isArray(node[key]) ? (node[key] as unknown[]) : [node[key]]));
  for (const key of SUBSCHEMA_KEYWORDS.list) if (Array.isArray(node[key])) out.push(...(node[key] as unknown[]));
  for (const key of SUBSCHEMA_KEYWORDS.map)
    if (key !== "$defs" && key !== "definitions" && isObject(node[key])) out.push(...Object.values(node[key] as JsonSchema));
  return out;
}

/**
 * A reference is recursive when expanding it meets it again. Every reference on the expansion stack
 * from that first occurrence up is on the cycle, so all of them are marked.
 */
function findRecursiveRefs(doc: SchemaDocument): Set<string> {
  const recursive = new Set<string>();
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (node: unknown): void => {
    if (!isObject(node)) return;
    if (typeof node.$ref === "string") {
      const ref = node.$ref;
      const at = stack.indexOf(ref);
      if (at >= 0) for (const onCycle of stack.slice(at)) recursive.add(onCycle);
      else if (!done.has(ref)) {
        const target = doc.target(ref);
        if (target !== undefined) {
          stack.push(ref);
          visitBody(target);
          stack.pop();
        }
        done.add(ref);
      }
    }
    visitBody(node);
  };
  const visitBody = (node: JsonSchema): void => {
    for (const child of childrenOf(node)) visit(child);
  };
  // The root is on the stack under "#", so a `{ "$ref": "#" }` inside it is a cycle through the root.
  stack.push("#");
  visitBody(doc.root);
  stack.pop();
  return recursive;
}
