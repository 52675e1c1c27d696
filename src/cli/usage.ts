/**
 * What a wrong command line gets: a UsageError (exit code 2, where a failed call is 1), and the parsers
 * of positional arguments that raise it.
 */
import { McpError } from "../jsonrpc/errors.js";

/** The command line itself is wrong (a missing or malformed argument): `mcp-switchboard` exits with 2. */
export class UsageError extends McpError {}

/** `<name> [json-args]`: the name, and the arguments as a JSON object (`{}` when left out). */
export function nameAndArgs(rest: string[], command: string, what: string, hint: string): [string, Record<string, unknown>] {
  const [name, json] = rest;
  if (name === undefined) throw new UsageError(`${command} needs a ${what} name (server__${what}); see \`mcp-switchboard ${hint}\``);
  return [name, json === undefined ? {} : jsonObject(json, `The arguments for ${name}`)];
}

export function jsonObject(json: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`${what} are not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new UsageError(`${what} must be a JSON object, like '{"a":1}'`);
  return value as Record<string, unknown>;
}

/**
 * Prompt arguments are strings in MCP: numbers and booleans are passed as their text, anything else is
 * refused rather than sent as "[object Object]".
 */
export function promptArgs(name: string, args: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string") out[key] = value;
    else if (typeof value === "number" || typeof value === "boolean") out[key] = String(value);
    else throw new UsageError(`The argument "${key}" of prompt ${name} must be a string (prompt arguments are strings), got ${JSON.stringify(value)}`);
  }
  return out;
}

export function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new UsageError(`${flag} takes a whole number above 0, got "${value}"`);
  return number;
}
