/**
 * Tool names providers accept. MCP allows any string (dots, slashes, spaces, long names); OpenAI and
 * Anthropic take `^[a-zA-Z0-9_-]{1,64}$`, Gemini starts with a letter or `_` and also takes `.` and
 * `:`. Names that fit stay as they are; the others are cleaned, cut, and given a short hash of the
 * original. The names of one tool list are made together, so two tools never share a name even when
 * hashes would collide, and the list maps each name back.
 */
import { createHash } from "node:crypto";

export type NameRule = "openai" | "anthropic" | "gemini";

export const PROVIDER_NAME_MAX = 64;

interface Rule {
  fits: RegExp;
  /** Characters to replace with `_`. */
  disallowed: RegExp;
  /** Whether the first character must be a letter or `_`. */
  letterFirst: boolean;
}

const RULES: Record<NameRule, Rule> = {
  openai: { fits: /^[a-zA-Z0-9_-]{1,64}$/, disallowed: /[^a-zA-Z0-9_-]/g, letterFirst: false },
  anthropic: { fits: /^[a-zA-Z0-9_-]{1,64}$/, disallowed: /[^a-zA-Z0-9_-]/g, letterFirst: false },
  gemini: { fits: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/, disallowed: /[^a-zA-Z0-9_.:-]/g, letterFirst: true },
};

/** Whether a provider accepts a name as it is. */
export function fitsNameRule(name: string, rule: NameRule): boolean {
  return RULES[rule].fits.test(name);
}

/** The name a provider sees for an MCP tool name, alone (no list to avoid collisions with). */
export function providerToolName(name: string, rule: NameRule = "openai"): string {
  return RULES[rule].fits.test(name) ? name : hashedName(name, RULES[rule], 0);
}

function hashedName(name: string, rule: Rule, attempt: number): string {
  let cleaned = name.replace(rule.disallowed, "_") || "tool";
  if (rule.letterFirst && !/^[a-zA-Z_]/.test(cleaned)) cleaned = `_${cleaned}`;
  // A short hash of the original keeps names that clean up alike (a.b, a/b) apart; a retry after a
  // collision hashes again with the attempt number and grows the hash.
  const hash = createHash("sha256")
    .update(attempt === 0 ? name : `${name}\u0000${attempt}`)
    .digest("hex")
    .slice(0, 8 + attempt);
  return `${cleaned.slice(0, PROVIDER_NAME_MAX - hash.length - 1)}_${hash}`;
}

export interface NameOptions {
  /** Put before every name, joined with `__` (`{ prefix: "mcp" }`: `mcp__math__add`). */
  prefix?: string | undefined;
}

export interface NameMap {
  /** MCP name -> provider name. */
  toProvider: Map<string, string>;
  /** Provider name -> MCP name. */
  toMcp: Map<string, string>;
}

/**
 * Provider names for one list of MCP names: names that fit first (they keep their names), then the
 * others, each checked against every name already taken. Deterministic for a given set of names.
 */
export function providerNames(names: readonly string[], rule: NameRule, options: NameOptions = {}): NameMap {
  const spec = RULES[rule];
  const prefixed = (name: string) => (options.prefix ? `${options.prefix}__${name}` : name);
  const sorted = [...new Set(names)].sort(compareCodeUnits);
  const toProvider = new Map<string, string>();
  const toMcp = new Map<string, string>();
  const later: string[] = [];
  for (const name of sorted) {
    const wanted = prefixed(name);
    if (spec.fits.test(wanted)) {
      toProvider.set(name, wanted);
      toMcp.set(wanted, name);
    } else later.push(name);
  }
  for (const name of later) {
    let attempt = 0;
    let candidate = hashedName(prefixed(name), spec, attempt);
    while (toMcp.has(candidate)) candidate = hashedName(prefixed(name), spec, ++attempt);
    toProvider.set(name, candidate);
    toMcp.set(candidate, name);
  }
  return { toProvider, toMcp };
}

/** Plain code-unit order: the same on every machine and locale, so tool order (and prompt caches) hold. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
