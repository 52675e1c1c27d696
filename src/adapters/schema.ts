/**
 * MCP input schemas are any JSON Schema object; providers want a plain object schema at the top:
 * `type: "object"` with `properties`. This fills in what is missing and drops the keys providers
 * reject at the top level, without touching the caller's object.
 */
export type JsonSchema = Record<string, unknown>;

/** Keys providers refuse (or ignore noisily) at the top of a function's parameters. */
const TOP_LEVEL_DROPPED = ["$schema", "$id"];

export function normaliseInputSchema(schema: unknown): JsonSchema {
  const source = typeof schema === "object" && schema !== null && !Array.isArray(schema) ? (schema as JsonSchema) : {};
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) if (!TOP_LEVEL_DROPPED.includes(key)) out[key] = value;
  out.type = "object";
  if (typeof out.properties !== "object" || out.properties === null) out.properties = {};
  if (out.required !== undefined && !Array.isArray(out.required)) delete out.required;
  return out;
}
