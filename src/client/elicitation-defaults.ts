/**
 * Elicitation form mode, 2025-11-25 (SEP-1034): a field of `requestedSchema` may carry a `default`.
 * When the user accepts but leaves such a field out, the client answers with the default filled in,
 * so the server sees the value the form showed. URL mode has no schema and passes through untouched.
 */
import type { Result } from "../connection/eras/dialect.js";
import { isObject } from "../util/guards.js";

/** The handler's answer with every omitted field that has a schema default filled in (accept only). */
export function withElicitationDefaults(params: Record<string, unknown>, answer: Result): Result {
  if (answer.action !== "accept") return answer;
  const properties = (params.requestedSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== "object" || properties === null) return answer;
  const given = answer.content;
  const content: Record<string, unknown> = isObject(given) ? { ...given } : {};
  let filled = false;
  for (const [field, schema] of Object.entries(properties as Record<string, unknown>)) {
    if (content[field] !== undefined || typeof schema !== "object" || schema === null || !("default" in schema)) continue;
    const fallback = (schema as { default?: unknown }).default;
    if (fallback === undefined) continue;
    content[field] = fallback;
    filled = true;
  }
  return filled ? { ...answer, content } : answer;
}
