/** Constraints a target cannot take, as words in the description, so the model still sees them. */
import { display } from "../../util/guards.js";

/** A value cut to `max` characters: for loss messages only, never for what the model reads. */
export function short(value: unknown, max = 80): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * A value as the model reads it, always whole: half a URL, pattern or enum value is a wrong value,
 * not a shorter one (a default cut with "…" was sent as a broken URL).
 */
export function whole(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

const MAX_DESCRIBED_SCHEMA = 400;

const plural = (n: unknown, word: string) => `${display(n)} ${word}${n === 1 ? "" : "s"}`;

/** One keyword as a phrase: "at least 3 characters", "default: 5000". */
export function phrase(keyword: string, value: unknown): string {
  switch (keyword) {
    case "minLength":
      return `at least ${plural(value, "character")}`;
    case "maxLength":
      return `at most ${plural(value, "character")}`;
    case "pattern":
      return `matching the pattern ${whole(value)}`;
    case "minimum":
      return `at least ${whole(value)}`;
    case "maximum":
      return `at most ${whole(value)}`;
    case "exclusiveMinimum":
      return `greater than ${whole(value)}`;
    case "exclusiveMaximum":
      return `less than ${whole(value)}`;
    case "multipleOf":
      return `a multiple of ${whole(value)}`;
    case "minItems":
      return `at least ${plural(value, "item")}`;
    case "maxItems":
      return `at most ${plural(value, "item")}`;
    case "uniqueItems":
      return value === true ? "no duplicate items" : "";
    case "minProperties":
      return `at least ${plural(value, "key")}`;
    case "maxProperties":
      return `at most ${plural(value, "key")}`;
    case "enum":
      return `one of ${(value as unknown[]).map(whole).join(", ")}`;
    case "const":
      return `always ${whole(value)}`;
    case "format":
      return `format: ${display(value)}`;
    case "default":
      return `default: ${whole(value)}`;
    case "examples":
      return `examples: ${Array.isArray(value) ? value.map(whole).join(", ") : whole(value)}`;
    case "example":
      return `example: ${whole(value)}`;
    case "deprecated":
      return value === true ? "deprecated" : "";
    case "contentMediaType":
      return `content type ${whole(value)}`;
    case "contentEncoding":
      return `encoded as ${whole(value)}`;
    default: {
      // Other keywords carry schemas: shown whole while short, else named, never cut mid-JSON.
      const text = whole(value);
      return text.length <= MAX_DESCRIBED_SCHEMA ? `${keyword}: ${text}` : `${keyword} (a rule of ${text.length} characters, not shown)`;
    }
  }
}

/** The description with notes appended: "URL to fetch (format: uri; at least 1 character)". */
export function compose(description: unknown, notes: readonly string[]): string | undefined {
  const text = typeof description === "string" && description.trim() !== "" ? description.trim() : undefined;
  const kept = notes.filter((note) => note !== "");
  if (kept.length === 0) return text;
  const joined = kept.join("; ");
  return text === undefined ? joined.charAt(0).toUpperCase() + joined.slice(1) : `${text} (${joined})`;
}
