/** Structural checks and coercions shared by every layer (no schema library on the hot path). */

/** A plain JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whatever was thrown, as an Error (a thrown string or object keeps its text). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(display(error));
}

/**
 * `value` without its members that are `undefined`: spread over defaults, `{ x: undefined }` then
 * leaves the default of `x` in place, as leaving `x` out does.
 */
export function definedMembers<T extends object>(value: T | undefined): Partial<T> {
  const out: Partial<T> = {};
  if (value === undefined) return out;
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] !== undefined) out[key] = value[key];
  return out;
}

/**
 * Array.isArray without its `any[]`: narrowing `unknown` (or a typed readonly array) with it yields `any`,
 * which then flows unchecked into whatever reads the elements.
 */
export function isArray(value: unknown): value is readonly unknown[] {
  return Array.isArray(value);
}

/** A value for a message: a string as it is, anything else as JSON (String() of an object says "[object Object]"). */
export function display(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Error) return value.message;
  return JSON.stringify(value) ?? String(value);
}
