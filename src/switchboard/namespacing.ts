/**
 * Tool names across many servers: `server + separator + tool` ("math__add"), and the per-server tool
 * filters (only / except / predicate) and description overrides applied before namespacing.
 *
 * Unambiguity: a qualified name is split at the *first* occurrence of the separator, so a server name
 * must not contain the separator and must not end in a way that runs into it ("a_" with "__" would
 * give "a___add", whose first "__" starts inside the server name). `serverNameProblem` enforces both;
 * tool names may then contain anything, the separator included.
 */

export const DEFAULT_SEPARATOR = "__";

export function qualify(server: string, tool: string, separator: string = DEFAULT_SEPARATOR): string {
  return `${server}${separator}${tool}`;
}

export interface QualifiedName {
  server: string;
  tool: string;
}

/** Anything with `has(name)`: a Set of names or a Map keyed by them. */
export interface NameSet {
  has(name: string): boolean;
}

/**
 * Splits a qualified name into server and tool; `undefined` when no known server owns it. Tries each
 * occurrence of the separator from the left, so it also finds servers whose names were not checked by
 * `serverNameProblem` (the first known prefix wins).
 */
export function parseQualified(name: string, separator: string, knownServers: NameSet): QualifiedName | undefined {
  if (separator === "") return undefined;
  for (let at = name.indexOf(separator); at !== -1; at = name.indexOf(separator, at + 1)) {
    const server = name.slice(0, at);
    const tool = name.slice(at + separator.length);
    if (tool !== "" && knownServers.has(server)) return { server, tool };
  }
  return undefined;
}

/** Why `name` cannot be a server name with this separator, or `undefined` when it can. */
export function serverNameProblem(name: string, separator: string): string | undefined {
  if (name === "") return "server names cannot be empty";
  if (name.includes(separator)) {
    return `the name contains the separator "${separator}", which would make qualified tool names ambiguous; rename the server or choose another "separator"`;
  }
  const firstSeparator = (name + separator).indexOf(separator);
  if (firstSeparator < name.length) {
    const example = qualify(name, "tool", separator);
    return `the name ends with "${name.slice(firstSeparator)}", which runs into the separator "${separator}" ("${example}" would split as "${name.slice(0, firstSeparator)}" + "${example.slice(firstSeparator + separator.length)}"); rename the server or choose another "separator"`;
  }
  return undefined;
}

/** What a server exposes of its tools. Names are the server's own (unqualified) tool names. */
export interface ToolFilter {
  /** Only these tools ("*" matches any run of characters: "read_*"). Omitted: all tools. */
  only?: string[];
  /** Minus these tools (same patterns), applied after `only`. */
  except?: string[];
  /** Replacement descriptions by tool name. */
  descriptions?: Record<string, string>;
  /** Code only: a last say on each tool that passed `only` and `except`. */
  filter?: (tool: FilterableTool) => boolean;
}

/** The parts of an MCP `Tool` the filters look at. */
export interface FilterableTool {
  name: string;
  description?: string;
}

/** Whether `name` matches a pattern where "*" stands for any run of characters (and nothing else is special). */
export function matchesToolPattern(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  const parts = pattern.split("*");
  const first = pattern.slice(0, pattern.indexOf("*"));
  const last = pattern.slice(pattern.lastIndexOf("*") + 1);
  if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false;
  let at = first.length;
  const end = name.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = name.indexOf(middle, at);
    if (found === -1 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

function matchesAny(patterns: readonly string[], name: string): boolean {
  return patterns.some((pattern) => matchesToolPattern(pattern, name));
}

/** Whether the filter lets `tool` through (description overrides aside). */
export function isToolExposed(tool: FilterableTool, filter: ToolFilter): boolean {
  if (filter.only && !matchesAny(filter.only, tool.name)) return false;
  if (filter.except && matchesAny(filter.except, tool.name)) return false;
  return filter.filter ? filter.filter(tool) : true;
}

/**
 * The tools a server exposes, with description overrides applied. Returns new objects for the tools
 * it changes and never mutates its input (the list may be a shared cache).
 */
export function applyToolFilter<T extends FilterableTool>(tools: readonly T[], filter: ToolFilter): T[] {
  const exposed: T[] = [];
  for (const tool of tools) {
    if (!isToolExposed(tool, filter)) continue;
    const description = filter.descriptions && Object.hasOwn(filter.descriptions, tool.name) ? filter.descriptions[tool.name] : undefined;
    exposed.push(description === undefined ? tool : { ...tool, description });
  }
  return exposed;
}

/**
 * Patterns in `only` / `except` and names in `descriptions` that match no tool the server has: almost always a typo or a
 * tool the server dropped, worth a warning (not an error: tool lists change at run time).
 */
export function unmatchedFilterNames(tools: readonly FilterableTool[], filter: ToolFilter): string[] {
  const names = tools.map((tool) => tool.name);
  const patterns = [...(filter.only ?? []), ...(filter.except ?? [])];
  const unmatched = patterns.filter((pattern) => !names.some((name) => matchesToolPattern(pattern, name)));
  for (const name of Object.keys(filter.descriptions ?? {})) if (!names.includes(name)) unmatched.push(name);
  return [...new Set(unmatched)];
}
