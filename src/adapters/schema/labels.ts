/**
 * Labels of enum values, in the forms servers send them: `oneOf` of `{ const, title }` options,
 * `enumNames` beside an `enum` (the form MCP elicitation and react-jsonschema-form use), and
 * "VALUE: label" lines in the description (Apollo's MCP server writes one per GraphQL enum value,
 * with nothing after the colon when the value has no description).
 */
import { isArray, isObject } from "../../util/guards.js";
import type { JsonSchema } from "./document.js";

const LABEL_KEYS = new Set(["const", "title", "description", "type"]);

const labelOf = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : undefined);

/** The description with "Values: ..." appended; unchanged when no value has a label. */
function withLabels(description: unknown, labels: readonly string[]): string | undefined {
  const text = labelOf(description);
  if (labels.length === 0) return text;
  return `${text === undefined ? "" : `${text.replace(/\.$/, "")}. `}Values: ${labels.join(", ")}`;
}

/**
 * A titled enum — `oneOf` (or `anyOf`) of `{ const, title }` with distinct values — as an `enum` with
 * the labels in the description (`"r" = Red, "g" = Green`): the same values, nothing lost. Undefined
 * when the node is not one.
 */
export function labelledEnum(node: JsonSchema): JsonSchema | undefined {
  const keyword = isArray(node.oneOf) ? "oneOf" : isArray(node.anyOf) ? "anyOf" : undefined;
  if (keyword === undefined) return undefined;
  const branches = node[keyword] as unknown[];
  if (branches.length === 0 || !branches.every((b) => isObject(b) && Object.hasOwn(b, "const") && Object.keys(b).every((k) => LABEL_KEYS.has(k))))
    return undefined;
  const values = (branches as JsonSchema[]).map((b) => b.const);
  if (new Set(values.map((v) => JSON.stringify(v))).size !== values.length) return undefined;
  const labels = (branches as JsonSchema[]).flatMap((b) => {
    const label = labelOf(b.title) ?? labelOf(b.description);
    return label === undefined ? [] : [`${JSON.stringify(b.const)} = ${label}`];
  });
  const { [keyword]: _branches, ...rest } = node;
  const out: JsonSchema = { ...rest, enum: values };
  const description = withLabels(rest.description, labels);
  if (description !== undefined) out.description = description;
  return out;
}

/**
 * `enumNames` (not a JSON Schema keyword, so providers drop it) as labels in the description. Labels
 * that are empty or just repeat the value are left out.
 */
export function enumNamesAsDescription(node: JsonSchema): JsonSchema {
  const { enumNames, ...rest } = node;
  if (!isArray(enumNames) || !isArray(node.enum)) return rest;
  const labels = node.enum.flatMap((value, i) => {
    const label = labelOf(enumNames[i]);
    return label === undefined || label === value ? [] : [`${JSON.stringify(value)} = ${label}`];
  });
  const description = withLabels(rest.description, labels);
  return description === undefined ? rest : { ...rest, description };
}

/**
 * The description without "VALUE:" lines that label nothing, and without a "Values:" heading left
 * with no lines under it. Lines with a label after the colon stay as they are.
 */
export function withoutEmptyLabels(description: string, values: readonly unknown[]): string {
  const names = new Set(values.filter((v): v is string => typeof v === "string"));
  const lines = description.split("\n").filter((line) => {
    const empty = /^\s*([^:\s][^:]*?)\s*:\s*$/.exec(line);
    return empty === null || !names.has(empty[1]!);
  });
  const kept = lines.filter((line, i) => {
    if (!/^\s*Values:\s*$/i.test(line)) return true;
    const next = lines.slice(i + 1).find((l) => l.trim() !== "");
    return next !== undefined && !/^\s*Values:\s*$/i.test(next);
  });
  return kept
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
