/**
 * OAuth scope strings (RFC 6749 §3.3: space-separated tokens) as the MCP scope rules use them: the
 * scope to ask for is the challenge's, else the resource's `scopes_supported`, else the configured
 * one, else none; a re-authorization asks for the union of what was asked before and what is
 * challenged now (SEP-2350), so a step-up never loses what was granted; `offline_access` is added only
 * where the authorization server lists it (SEP-2207).
 */

export function scopeTokens(scope: string | undefined): string[] {
  return scope === undefined ? [] : scope.split(/\s+/).filter((token) => token !== "");
}

/** The union, in first-seen order; undefined when empty. */
export function unionScopes(...scopes: Array<string | undefined>): string | undefined {
  const seen = new Set<string>();
  for (const scope of scopes) for (const token of scopeTokens(scope)) seen.add(token);
  return seen.size === 0 ? undefined : [...seen].join(" ");
}

/** Whether `wanted` holds a token `held` lacks. */
export function addsScope(wanted: string | undefined, held: string | undefined): boolean {
  const have = new Set(scopeTokens(held));
  return scopeTokens(wanted).some((token) => !have.has(token));
}

export function withOfflineAccess(scope: string | undefined, serverScopes: readonly string[] | undefined): string | undefined {
  if (scope === undefined || !(serverScopes ?? []).includes("offline_access")) return scope;
  return unionScopes(scope, "offline_access");
}
