/** Structural checks and coercions shared by every layer (no schema library on the hot path). */

/** A plain JSON object: not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whatever was thrown, as an Error (a thrown string or object keeps its text). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
