/**
 * The schema compiler: one MCP input schema -> the form one provider accepts. Pure: it reads the
 * input and builds a new schema. References are inlined (recursive ones stay in `$defs` where the
 * target takes that, and are unrolled where it does not), `allOf` is merged, `oneOf` becomes `anyOf`
 * where the target lacks it, and what a target refuses goes into the description. Every change that
 * lets the converted schema accept something the original does not (or the reverse) is listed in
 * `losses`: no losses means the conversion is exact, which is what `strict: "auto"` looks for.
 */
import { isObject } from "../../util/guards.js";
import { compose, phrase, short } from "./describe.js";
import { SchemaDocument, layer, sameJson, type JsonSchema } from "./document.js";
import { disjoint } from "./disjoint.js";
import { mergeAllOf } from "./merge.js";
import { enumNamesAsDescription, labelledEnum, withoutEmptyLabels } from "./labels.js";
import { CLOSED_UNSPECIFIED, mergeRootAlternatives, strictObject, strictWithinLimits, takesNothing, withNull } from "./shape.js";
import { GEMINI_RECURSION_DEPTH, isPortablePattern, profileFor, type SchemaTarget, type TargetProfile } from "./targets.js";
import {
  ANNOTATION_ONLY,
  ARRAY_KEYWORDS,
  DROPPED,
  KNOWN,
  OBJECT_CONSTRAINTS,
  OBJECT_KEYWORDS,
  SUBSCHEMA_VALUE,
  defName,
  describeMap,
  inferTypes,
  mapSchemas,
  summary,
  typeList,
} from "./vocabulary.js";

export interface CompiledSchema {
  /** The parameters schema to send: a top-level object (for Gemini, `undefined` when the tool takes no arguments). */
  schema: JsonSchema | undefined;
  /** Where and how the converted schema differs in what it accepts; empty when the conversion is exact. */
  losses: string[];
  /** OpenAI strict only: the schema is within OpenAI's strict-mode size limits. */
  withinLimits: boolean;
}

/** The words that mark a value taken as JSON text (the encoder in codec.ts looks for them). */
export const JSON_TEXT_NOTE = "written as JSON text";

const UNIONS = ["anyOf", "oneOf"] as const;

export function compileSchema(input: unknown, target: SchemaTarget): CompiledSchema {
  return new Compiler(normaliseRoot(input), profileFor(target)).run();
}

function normaliseRoot(input: unknown): JsonSchema {
  return isObject(input) ? input : {};
}

export class Compiler {
  readonly doc: SchemaDocument;
  readonly losses: string[] = [];
  private readonly defNames = new Map<string, string>();
  private readonly defs: Record<string, JsonSchema> = {};
  private readonly pending: string[] = [];
  private readonly stack: string[] = ["#"];

  constructor(
    root: JsonSchema,
    readonly profile: TargetProfile,
  ) {
    this.doc = new SchemaDocument(root);
  }

  run(): CompiledSchema {
    // A tool without parameters: nothing to convert (and trivially strict).
    if (takesNothing(this.doc.root)) {
      if (this.profile.target === "gemini") return { schema: undefined, losses: [], withinLimits: true };
      if (!this.profile.strict) return { schema: { type: "object", properties: {} }, losses: [], withinLimits: true };
      const losses = this.doc.root.additionalProperties === false ? [] : [`(top level): ${CLOSED_UNSPECIFIED}`];
      return { schema: { type: "object", properties: {}, required: [], additionalProperties: false }, losses, withinLimits: true };
    }
    const root = mergeRootAlternatives(this.doc, this.doc.root, this.losses);
    let schema = this.node(root, "");
    if (schema.type !== "object" || Array.isArray(schema.anyOf)) {
      this.loss("", "the top level is not an object: the tool is offered without parameters");
      schema = { type: "object", properties: {} };
    }
    while (this.pending.length > 0) {
      const ref = this.pending.shift()!;
      const name = this.defNames.get(ref)!;
      this.stack.push(ref);
      this.defs[name] = this.node(this.doc.target(ref), `$defs.${name}`);
      this.stack.pop();
    }
    if (Object.keys(this.defs).length > 0) schema.$defs = this.defs;
    if (this.profile.target !== "openai-strict" && schema.properties === undefined) schema.properties = {};
    if (this.profile.target === "gemini" && Object.keys(schema.properties as JsonSchema).length === 0) {
      return { schema: undefined, losses: this.losses, withinLimits: true };
    }
    const withinLimits = this.profile.strict ? strictWithinLimits(schema) : true;
    return { schema, losses: this.losses, withinLimits };
  }

  loss(path: string, what: string): void {
    this.losses.push(`${path || "(top level)"}: ${what}`);
  }

  /** One subschema, compiled. */
  node(input: unknown, path: string): JsonSchema {
    if (input === true || input === undefined) return this.anyValue(path, {});
    if (!isObject(input)) {
      this.loss(path, "a schema that accepts nothing is dropped");
      return this.anyValue(path, {});
    }
    if (typeof input.$ref === "string") return this.reference(input, path);
    let node = Array.isArray(input.allOf) ? mergeAllOf(input, this.doc) : input;
    if (node.nullable === true && typeof node.type === "string") node = { ...node, type: [node.type, "null"] };
    if ("enumNames" in node) node = enumNamesAsDescription(node);
    if (Array.isArray(node.enum) && typeof node.description === "string") node = { ...node, description: withoutEmptyLabels(node.description, node.enum) };
    // Targets without oneOf/const would drop the labels of a titled enum: an enum, labels in the description.
    if (!this.keepsTitles()) node = labelledEnum(node) ?? node;
    if (UNIONS.some((k) => Array.isArray(node[k]))) return this.union(node, path);
    return this.typed(node, path);
  }

  private reference(input: JsonSchema, path: string): JsonSchema {
    const ref = input.$ref as string;
    const { $ref: _ref, ...siblings } = input;
    const target = this.doc.target(ref);
    if (target === undefined) {
      this.loss(path, `the reference ${ref} cannot be resolved here, so any value is let through`);
      return this.anyValue(path, { ...siblings, description: compose(siblings.description, [`schema ${ref} not available`]) });
    }
    if (!this.doc.isRecursive(ref)) return this.expand(ref, layer(target, siblings), path);
    if (!this.profile.refs) {
      if (this.stack.filter((r) => r === ref).length >= GEMINI_RECURSION_DEPTH) {
        return this.jsonText(path, siblings, `a nested ${defName(ref)}`);
      }
      return this.expand(ref, layer(target, siblings), path);
    }
    const out: JsonSchema = { $ref: ref === "#" ? "#" : `#/$defs/${this.define(ref)}` };
    const notes: string[] = [];
    for (const [key, value] of Object.entries(siblings)) {
      if (key === "default" || key === "examples" || key === "deprecated") {
        if (this.profile.annotations.has(key)) out[key] = value;
        else if (!(key === "default" && value === null)) notes.push(phrase(key, value));
      } else if (!DROPPED.has(key)) {
        this.loss(path, `${key} beside a recursive reference is dropped`);
      }
    }
    const description = compose(siblings.description, notes);
    if (description !== undefined) out.description = description;
    return out;
  }

  private expand(ref: string, node: JsonSchema, path: string): JsonSchema {
    this.stack.push(ref);
    try {
      return this.node(node, path);
    } finally {
      this.stack.pop();
    }
  }

  private define(ref: string): string {
    let name = this.defNames.get(ref);
    if (name === undefined) {
      const base = defName(ref);
      name = base;
      for (let i = 2; Object.hasOwn(this.defs, name) || [...this.defNames.values()].includes(name); i++) name = `${base}${i}`;
      this.defNames.set(ref, name);
      this.pending.push(ref);
    }
    return name;
  }

  /** `anyOf` / `oneOf`: other validating keywords beside the union are distributed into each branch. */
  private union(node: JsonSchema, path: string): JsonSchema {
    const keyword = Array.isArray(node.anyOf) ? "anyOf" : "oneOf";
    const { [keyword]: rawBranches, ...others } = node;
    const siblings: JsonSchema = {};
    const annotations: JsonSchema = {};
    for (const [key, value] of Object.entries(others)) {
      if (ANNOTATION_ONLY.has(key)) annotations[key] = value;
      else siblings[key] = value;
    }
    let branches = (rawBranches as unknown[]).filter((b) => b !== false);
    if (Object.keys(siblings).length > 0) branches = branches.map((b) => (isObject(b) ? { allOf: [siblings, b] } : siblings));
    if (keyword === "oneOf" && !this.profile.oneOf && !disjoint(branches, this.doc)) {
      this.loss(path, "oneOf is offered as anyOf (its alternatives overlap, so a value may now match more than one)");
    }
    const compiled: JsonSchema[] = [];
    let nullable = false;
    branches.forEach((branch, i) => {
      const out = this.node(branch, `${path}.${keyword}[${i}]`);
      const onlyUnion = Object.keys(out).every((k) => k === "anyOf" || k === "description");
      if (out.type === "null" && Object.keys(out).length === 1) nullable = true;
      else if (onlyUnion && Array.isArray(out.anyOf) && out.description === undefined) compiled.push(...(out.anyOf as JsonSchema[]));
      else if (!compiled.some((c) => sameJson(c, out))) compiled.push(out);
    });
    const notes = this.annotationNotes(annotations);
    let out: JsonSchema;
    if (compiled.length === 0) out = { type: "null" };
    else if (compiled.length === 1) out = { ...compiled[0] };
    else out = { [keyword === "oneOf" && this.profile.oneOf ? "oneOf" : "anyOf"]: compiled };
    if (nullable && compiled.length > 0) out = withNull(out, this.profile);
    const description = compose(annotations.description ?? (compiled.length === 1 ? out.description : undefined), notes.notes);
    return this.finish(out, description, notes.kept);
  }

  /** A node without a union: its type decides which keywords apply. */
  private typed(node: JsonSchema, path: string): JsonSchema {
    let types = typeList(node.type);
    if (types === undefined) types = inferTypes(node);
    if (types === undefined) return this.anyValue(path, node);
    const nullable = types.includes("null");
    const nonNull = types.filter((t) => t !== "null");
    if (nonNull.length === 0) return this.finish({ type: "null" }, compose(node.description, this.annotationNotes(node).notes), {});
    if (nonNull.length > 1 && (this.profile.strict || this.profile.nullableKeyword)) {
      // One type per branch: exact, since type-specific keywords only apply to their own type.
      const outer: JsonSchema = {};
      const inner: JsonSchema = {};
      for (const [key, value] of Object.entries(node)) (ANNOTATION_ONLY.has(key) ? outer : inner)[key] = value;
      const branches = nonNull.map((t) => ({ ...inner, type: t }));
      return this.union({ ...outer, anyOf: nullable ? [...branches, { type: "null" }] : branches }, path);
    }
    const notes = this.annotationNotes(node);
    let out: JsonSchema = { type: nonNull.length === 1 ? nonNull[0] : nonNull };
    const isObjectType = nonNull.includes("object");
    const isArrayType = nonNull.includes("array");
    for (const [key, value] of Object.entries(node)) {
      if (DROPPED.has(key) || key === "default" || key === "examples" || key === "example" || key === "deprecated") continue;
      if (key === "enum" || key === "const") this.enumLike(out, key, value, notes.notes, path);
      else if (key === "format") this.format(out, value, notes.notes);
      else if (key === "contentEncoding" || key === "contentMediaType") notes.notes.push(phrase(key, value));
      else if (OBJECT_KEYWORDS.has(key) || ARRAY_KEYWORDS.has(key) || key === "allOf") continue;
      else if (key === "pattern" && this.profile.keywords.has(key) && !isPortablePattern(String(value))) this.describe(key, value, notes.notes, path);
      else if (this.profile.keywords.has(key)) out[key] = SUBSCHEMA_VALUE.has(key) ? this.node(value, `${path}.${key}`) : value;
      else if (key.startsWith("x-") || !KNOWN.has(key)) continue;
      else this.describe(key, value, notes.notes, path);
    }
    if (Array.isArray(node.allOf)) {
      if (this.profile.strict || !this.profile.refs) this.describe("allOf", node.allOf, notes.notes, path);
      else out.allOf = (node.allOf as unknown[]).map((b, i) => this.node(b, `${path}.allOf[${i}]`));
    }
    // A const option's title is its label (`oneOf` of `{ const, title }`): kept where the target takes titles.
    if ("const" in node && typeof node.title === "string" && node.title.trim() !== "" && this.keepsTitles()) out.title = node.title;
    if (isArrayType) this.arrayKeywords(node, out, notes.notes, path);
    if (isObjectType) {
      const shaped = this.objectKeywords(node, out, notes.notes, path);
      if (shaped !== out) return shaped;
    }
    if (nullable) out = withNull(out, this.profile);
    return this.finish(out, compose(node.description, notes.notes), notes.kept);
  }

  /** Full JSON Schema targets take `title`; the others get labels as words (labels.ts). */
  private keepsTitles(): boolean {
    return this.profile.target === "openai" || this.profile.target === "anthropic";
  }

  private enumLike(out: JsonSchema, key: "enum" | "const", value: unknown, notes: string[], path: string): void {
    const values = key === "const" ? [value] : Array.isArray(value) ? value.filter((v) => v !== null) : [];
    if (this.profile.stringEnumsOnly && values.some((v) => typeof v !== "string")) {
      this.describe(key, value, notes, path);
      return;
    }
    if (key === "const" && (this.profile.strict || this.profile.stringEnumsOnly)) out.enum = values;
    else if (key === "const") out.const = value;
    else out.enum = this.profile.nullableKeyword ? values : value;
    if (this.profile.nullableKeyword && out.type === undefined) out.type = "string";
  }

  private format(out: JsonSchema, value: unknown, notes: string[]): void {
    if (this.profile.formats === "all" || this.profile.formats.has(String(value))) out.format = value;
    else notes.push(phrase("format", value));
  }

  /** A keyword the target refuses: into the description, and the schema now accepts more. */
  describe(key: string, value: unknown, notes: string[], path: string): void {
    const words = phrase(key, value);
    if (words !== "") notes.push(words);
    this.loss(path, `${key} ${short(value, 60)} is only described`);
  }

  private arrayKeywords(node: JsonSchema, out: JsonSchema, notes: string[], path: string): void {
    const tuple = Array.isArray(node.items) ? (node.items as unknown[]) : Array.isArray(node.prefixItems) ? (node.prefixItems as unknown[]) : undefined;
    const rest = Array.isArray(node.items) ? node.additionalItems : tuple ? node.items : node.items;
    if (tuple !== undefined) {
      const compiled = tuple.map((item, i) => this.node(item, `${path}[${i}]`));
      if (this.profile.keywords.has("prefixItems")) {
        out.prefixItems = compiled;
        // `items: false` after a tuple is the same as a maximum length; OpenAI wants `items` present.
        if (rest === false) out.maxItems = Math.min(tuple.length, typeof out.maxItems === "number" ? out.maxItems : Infinity);
        out.items = isObject(rest) ? this.node(rest, `${path}[]`) : {};
        return;
      }
      const kinds = isObject(rest) ? [...compiled, this.node(rest, `${path}[]`)] : compiled;
      const distinct = kinds.filter((k, i) => kinds.findIndex((o) => sameJson(o, k)) === i);
      out.items = distinct.length === 1 ? distinct[0] : { anyOf: distinct };
      notes.push(`items in this order: ${compiled.map(summary).join(", ")}`);
      this.loss(path, "a tuple is offered as an array of its item types");
      return;
    }
    if (rest !== undefined && rest !== true) out.items = this.node(rest, `${path}[]`);
    else if (this.profile.target !== "anthropic") out.items = this.anyValue(`${path}[]`, {});
  }

  private objectKeywords(node: JsonSchema, out: JsonSchema, notes: string[], path: string): JsonSchema {
    const source = isObject(node.properties) ? node.properties : {};
    const properties: JsonSchema = {};
    for (const [key, value] of Object.entries(source)) properties[key] = this.node(value, `${path}.${key}`);
    const required = Array.isArray(node.required) ? (node.required as unknown[]).filter((r): r is string => typeof r === "string") : [];
    for (const key of required) {
      if (!(key in properties) && (this.profile.strict || this.profile.nullableKeyword)) {
        properties[key] = this.anyValue(`${path}.${key}`, {});
      }
    }
    const extra = node.additionalProperties;
    for (const key of OBJECT_CONSTRAINTS) {
      if (!(key in node)) continue;
      if (key === "propertyNames" && isObject(node.propertyNames) && sameJson(node.propertyNames, { type: "string" })) continue;
      if (this.profile.keywords.has(key))
        out[key] =
          key === "patternProperties" || key === "dependentSchemas"
            ? mapSchemas(node[key], (s, k) => this.node(s, `${path}.${key}.${k}`))
            : key === "propertyNames" || key === "unevaluatedProperties"
              ? this.node(node[key], `${path}.${key}`)
              : node[key];
      else this.describe(key, node[key], notes, path);
    }
    if (this.profile.strict || this.profile.nullableKeyword) {
      if (Object.keys(properties).length === 0 && (extra !== false || this.profile.nullableKeyword) && path !== "") {
        return this.jsonText(path, node, describeMap(extra));
      }
    }
    out.properties = properties;
    if (this.profile.strict) return strictObject(this, node, out, path);
    const kept = required.filter((key) => key in properties || !this.profile.nullableKeyword);
    if (kept.length > 0) out.required = kept;
    if (this.profile.nullableKeyword) {
      if (extra !== undefined && extra !== false) this.loss(path, "keys beyond the listed properties cannot be offered");
      if (Object.keys(properties).length > 1) out.propertyOrdering = Object.keys(properties);
    } else if (extra !== undefined) {
      out.additionalProperties = isObject(extra) ? this.node(extra, `${path}.*`) : extra;
    }
    return out;
  }

  /** Defaults and examples: kept where the target takes them, otherwise words in the description. */
  private annotationNotes(node: JsonSchema): { notes: string[]; kept: JsonSchema } {
    const notes: string[] = [];
    const kept: JsonSchema = {};
    for (const key of ["default", "examples", "example", "deprecated"]) {
      if (!(key in node)) continue;
      const value = node[key];
      if (this.profile.annotations.has(key)) kept[key] = value;
      else if (!(key === "default" && value === null)) notes.push(phrase(key, value));
    }
    return { notes, kept };
  }

  private finish(out: JsonSchema, description: string | undefined, kept: JsonSchema): JsonSchema {
    const result: JsonSchema = {};
    if (out.type !== undefined) result.type = out.type;
    if (description !== undefined) result.description = description;
    for (const [key, value] of Object.entries(out)) if (key !== "type" && key !== "description") result[key] = value;
    return Object.assign(result, kept);
  }

  /**
   * A schema that accepts any value. Strict OpenAI and Gemini need a type, and cannot take an object
   * with unknown keys, so there it becomes "a string, number, boolean or null": a loss.
   */
  anyValue(path: string, node: JsonSchema): JsonSchema {
    const notes = this.annotationNotes(node);
    if (!this.profile.strict && !this.profile.nullableKeyword) return this.finish({}, compose(node.description, notes.notes), notes.kept);
    this.loss(path, "any JSON value is narrowed to a string, number, boolean or null");
    const scalars = [{ type: "string" }, { type: "number" }, { type: "boolean" }];
    const out = this.profile.nullableKeyword ? { anyOf: scalars.map((s) => ({ ...s, nullable: true })) } : { anyOf: [...scalars, { type: "null" }] };
    return this.finish(out, compose(node.description, notes.notes), notes.kept);
  }

  /** A value the target cannot describe, taken as JSON text; the runners parse it back. */
  jsonText(path: string, node: JsonSchema, what: string): JsonSchema {
    this.loss(path, `${what} is taken as JSON text`);
    const notes = this.annotationNotes(node);
    return this.finish({ type: "string" }, compose(node.description, [...notes.notes, `${what}, ${JSON_TEXT_NOTE}`]), notes.kept);
  }
}
