/**
 * What each provider accepts in a tool's parameter schema. The compiler keeps the keywords a target
 * takes, rewrites the ones it can express another way, and moves the rest into the description.
 *
 * Sources, by what they are: OpenAI's Structured Outputs guide ("supported schemas", the strict-mode
 * subset and its limits) and the `openai` package's own strict transform; Anthropic's tool-use guide
 * (input_schema is JSON Schema; no combinators at its top level); Google's Gemini API reference for
 * `FunctionDeclaration.parameters` (the OpenAPI 3.0 `Schema` subset).
 */

export type SchemaTarget = "openai" | "openai-strict" | "anthropic" | "gemini";

export interface TargetProfile {
  target: SchemaTarget;
  /** Recursive schemas may keep `$defs` + `$ref` (otherwise they are unrolled). */
  refs: boolean;
  /** `oneOf` kept (otherwise it becomes `anyOf`). */
  oneOf: boolean;
  /** Strict Structured Outputs: closed objects, every property required, optional ones nullable. */
  strict: boolean;
  /** Nullability as `nullable: true` beside one `type` (OpenAPI 3.0), not `type: [..., "null"]`. */
  nullableKeyword: boolean;
  /** Annotations kept as keywords; the others are folded into the description. */
  annotations: ReadonlySet<string>;
  /** Validation keywords kept as they are; the others are described (and the schema accepts more). */
  keywords: ReadonlySet<string>;
  /** String formats kept; others are described. `format` is an annotation, so describing it loses nothing. */
  formats: ReadonlySet<string> | "all";
  /** Enum and const values other than strings are described, not kept. */
  stringEnumsOnly: boolean;
}

const FULL_JSON_SCHEMA = [
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
  "prefixItems",
  "minProperties",
  "maxProperties",
  "patternProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "not",
  "if",
  "then",
  "else",
  "unevaluatedProperties",
  "unevaluatedItems",
  "const",
];

/** OpenAI without strict mode and Anthropic take JSON Schema as it is. */
function fullJsonSchema(target: "openai" | "anthropic"): TargetProfile {
  return {
    target,
    refs: true,
    oneOf: true,
    strict: false,
    nullableKeyword: false,
    annotations: new Set(["default", "examples"]),
    keywords: new Set(FULL_JSON_SCHEMA),
    formats: "all",
    stringEnumsOnly: false,
  };
}

const PROFILES: Record<SchemaTarget, TargetProfile> = {
  openai: { ...fullJsonSchema("openai") },
  "openai-strict": {
    target: "openai-strict",
    refs: true,
    oneOf: false,
    strict: true,
    nullableKeyword: false,
    // Strict mode refuses `default` on some deployments; the description carries it instead.
    annotations: new Set(),
    keywords: new Set(["multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "minItems", "maxItems"]),
    formats: new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]),
    stringEnumsOnly: false,
  },
  anthropic: { ...fullJsonSchema("anthropic") },
  gemini: {
    // `default` too goes into the description: the @google/genai SDK refuses it for the Developer API.
    target: "gemini",
    refs: false,
    oneOf: false,
    strict: false,
    nullableKeyword: true,
    annotations: new Set(),
    keywords: new Set(["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"]),
    // The Gemini API takes "enum" and "date-time" for strings (and int32/int64/float/double for numbers).
    formats: new Set(["date-time", "enum", "int32", "int64", "float", "double"]),
    stringEnumsOnly: true,
  },
};

export function profileFor(target: SchemaTarget): TargetProfile {
  return PROFILES[target];
}

/**
 * OpenAI's strict-mode limits on one schema. A schema over them is refused by the API, so it is sent
 * non-strict even when `strict: true` was asked for.
 */
export const OPENAI_STRICT_LIMITS = {
  /** Object properties in the whole schema. */
  maxProperties: 5000,
  /** Levels of object nesting. */
  maxNesting: 10,
  /** Enum values across all enums. */
  maxEnumValues: 1000,
  /** Characters in all property names, definition names, enum and const values together. */
  maxTotalStringLength: 120_000,
} as const;

/** How many times Gemini's form unrolls a recursive definition before it takes JSON text instead. */
export const GEMINI_RECURSION_DEPTH = 3;

/**
 * Regular-expression features the constrained decoders do not take (look-around, back-references,
 * possessive or atomic groups, Unicode property classes): such a `pattern` is described instead.
 */
export function isPortablePattern(pattern: string): boolean {
  return !/\(\?[=!<>]|\\[1-9]|\\k<|\(\?>|[*+?}]\+|\\[pP]\{/.test(pattern);
}
