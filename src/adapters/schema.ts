/**
 * Input schemas for providers: the compiler (schema/compile.ts) per target, and the way back for
 * arguments (schema/codec.ts). Both are cached per schema object: servers' tool lists keep their
 * schema objects until the list changes, so a schema is compiled once per target, not per call.
 */
import { isObject } from "../util/guards.js";
import { decodeArguments as decodeWith } from "./schema/codec.js";
import { compileSchema, type CompiledSchema } from "./schema/compile.js";
import { SchemaDocument, type JsonSchema } from "./schema/document.js";
import type { SchemaTarget } from "./schema/targets.js";

export type { JsonSchema } from "./schema/document.js";
export type { CompiledSchema } from "./schema/compile.js";
export type { SchemaTarget } from "./schema/targets.js";
export { OPENAI_STRICT_LIMITS } from "./schema/targets.js";

const compiled = new WeakMap<object, Map<SchemaTarget, CompiledSchema>>();
const documents = new WeakMap<object, SchemaDocument>();
const EMPTY = {};

/** The schema compiled for one target (cached per schema object and target). */
export function compileInputSchema(schema: unknown, target: SchemaTarget): CompiledSchema {
  const key = isObject(schema) ? schema : EMPTY;
  let perTarget = compiled.get(key);
  if (perTarget === undefined) compiled.set(key, (perTarget = new Map<SchemaTarget, CompiledSchema>()));
  let result = perTarget.get(target);
  if (result === undefined) perTarget.set(target, (result = compileSchema(key, target)));
  return result;
}

/**
 * A plain JSON Schema object for any provider: `type: "object"` with `properties` at the top,
 * references inlined (recursive ones kept in `$defs`), `allOf` merged, no `$schema`/`$id`/titles.
 * This is the Anthropic form, and what OpenAI takes without strict mode.
 */
export function normaliseInputSchema(schema: unknown): JsonSchema {
  return compileInputSchema(schema, "anthropic").schema as JsonSchema;
}

/**
 * Model arguments back into what the tool's original schema accepts: `null` for an optional property
 * that cannot be null is dropped, JSON text where the schema takes no string is parsed.
 */
export function decodeArguments(schema: unknown, args: unknown): unknown {
  const key = isObject(schema) ? schema : EMPTY;
  let doc = documents.get(key);
  if (doc === undefined) documents.set(key, (doc = new SchemaDocument(key)));
  return decodeWith(doc, args);
}
