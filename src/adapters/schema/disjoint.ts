/**
 * Whether the alternatives of a `oneOf` exclude each other, so that offering them as `anyOf` (for a
 * target without `oneOf`) accepts exactly the same values. Conservative: `false` means "maybe overlap".
 */
import { isObject } from "../../util/guards.js";
import { sameJson, type JsonSchema, type SchemaDocument } from "./document.js";
import { mergeAllOf } from "./merge.js";

/** Whether no value can match two of the alternatives. */
export function disjoint(branches: unknown[], doc: SchemaDocument): boolean {
  for (let i = 0; i < branches.length; i++) {
    for (let j = i + 1; j < branches.length; j++) if (!pairDisjoint(branches[i], branches[j], doc)) return false;
  }
  return true;
}

function pairDisjoint(a: unknown, b: unknown, doc: SchemaDocument): boolean {
  const ta = doc.typesOf(a);
  const tb = doc.typesOf(b);
  if (![...ta].some((t) => tb.has(t))) return true;
  if (!isObject(a) || !isObject(b)) return false;
  const na = doc.deref(Array.isArray(a.allOf) ? mergeAllOf(a, doc) : a).node;
  const nb = doc.deref(Array.isArray(b.allOf) ? mergeAllOf(b, doc) : b).node;
  // A key both alternatives pin to different values, and one of them requires, tells them apart.
  return [...new Set([...requiredKeys(na), ...requiredKeys(nb)])].some((key) => {
    const va = pinnedValues(na, key, doc);
    const vb = pinnedValues(nb, key, doc);
    return va !== undefined && vb !== undefined && !va.some((v) => vb.some((w) => sameJson(v, w)));
  });
}

function requiredKeys(node: JsonSchema): string[] {
  return Array.isArray(node.required) ? (node.required as string[]) : [];
}

/** The values a property is pinned to by `const` or `enum`, or `undefined` when it is not pinned. */
function pinnedValues(node: JsonSchema, key: string, doc: SchemaDocument): unknown[] | undefined {
  const prop = isObject(node.properties) ? node.properties[key] : undefined;
  if (!isObject(prop)) return undefined;
  const p = doc.deref(prop).node;
  if ("const" in p) return [p.const];
  return Array.isArray(p.enum) ? p.enum : undefined;
}
