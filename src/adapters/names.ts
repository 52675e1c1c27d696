/**
 * LLM providers accept tool names of [a-zA-Z0-9_-], at most 64 characters; MCP allows more (dots,
 * slashes, long names). The mapping is a pure function of the MCP name, so a provider's tool call can be
 * mapped back from the same tool list without keeping state between the two directions.
 */
import { createHash } from "node:crypto";

export const PROVIDER_NAME_MAX = 64;
const ALLOWED = /^[a-zA-Z0-9_-]{1,64}$/;

/** The name a provider sees for an MCP tool name. Names that already fit are unchanged. */
export function providerToolName(name: string): string {
  if (ALLOWED.test(name)) return name;
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool";
  // A short hash of the original keeps two names that clean up alike (a.b, a/b) apart.
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${cleaned.slice(0, PROVIDER_NAME_MAX - hash.length - 1)}_${hash}`;
}

/** Maps provider names back to MCP names for one tool list. */
export function providerNameIndex(names: Iterable<string>): Map<string, string> {
  const index = new Map<string, string>();
  for (const name of names) index.set(providerToolName(name), name);
  return index;
}
