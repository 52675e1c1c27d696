/** Constraints a target cannot take, as words in the description, so the model still sees them. */
import { display } from "../../util/guards.js";

export function short(value: unknown, max = 80): string {
  const text = typeof value === "string" ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const plural = (n: unknown, word: string) => `${display(n)} ${word}${n === 1 ? "" : "s"}`;

/** One keyword as a phrase: "at least 3 characters", "default: 5000". */
export function phrase(keyword: string, value: unknown): string {
  switch (keyword) {
    case "minLength":
      return `at least ${plural(value, "character")}`;
    case "maxLength":
      return `at most ${plural(value, "character")}`;
    case "pattern":
      return `matching the pattern ${short(value)}`;
    case "minimum":
      return `at least ${short(value)}`;
    case "maximum":
      return `at most ${short(value)}`;
    case "exclusiveMinimum":
      return `greater than ${short(value)}`;
    case "exclusiveMaximum":
      return `less than ${short(value)}`;
    case "multipleOf":
      return `a multiple of ${short(value)}`;
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
      return `one of ${(value as unknown[]).map((v) => short(v, 40)).join(", ")}`;
    case "const":
      return `always ${short(value)}`;
    case "format":
      return `format: ${display(value)}`;
    case "default":
      return `default: ${short(value)}`;
    case "examples":
      return `examples: ${Array.isArray(value) ? value.map((v) => short(v, 40)).join(", ") : short(value)}`;
    case "example":
      return `example: ${short(value)}`;
    case "deprecated":
      return value === true ? "deprecated" : "";
    case "contentMediaType":
      return `content type ${short(value)}`;
    case "contentEncoding":
      return `encoded as ${short(value)}`;
    default:
      return `${keyword}: ${short(value, 120)}`;
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
