/**
 * `${VAR}` substitution in config strings.
 *
 * - `${NAME}`: the variable's value; an unset variable is an error (a set but empty one gives "").
 * - `${NAME:-default}`: the value, or `default` when the variable is unset or empty (as in sh).
 *   The default is literal text up to the first "}" (no nesting).
 * - `$${`: a literal "${" (the docker-compose escape; chosen over `\${` because a backslash in JSON
 *   must itself be escaped, `"\\${"`, which nobody gets right the first time).
 * - NAME is letters, digits and "_", not starting with a digit. Any other `${...}` is an error, so a
 *   typo (or another tool's syntax, like VS Code's `${input:token}`) never silently passes through.
 * - A "$" not followed by "{" is just a "$". Scanning goes left to right, so "$$${X}" is a "$" followed
 *   by a literal "${X}".
 */

import { ConfigError, type ConfigErrorOptions } from "../jsonrpc/errors.js";

/** A `${VAR}` whose variable is not set: without `strictEnv` it fails only its server (config.ts). */
export class UnsetVariableError extends ConfigError {
  constructor(
    message: string,
    readonly variable: string,
    where: ConfigErrorOptions,
  ) {
    super(message, where);
    this.name = "ConfigError"; // what it is to anyone who catches it: the subclass only tells config.ts apart
  }
}

/** Where `${VAR}` values come from (`process.env` unless given). */
export type Environment = Record<string, string | undefined>;

/** A failure names the `variable` when it is one that is not set (config.ts fails only its server then). */
export type SubstitutionResult = { ok: true; value: string } | { ok: false; message: string; variable?: string };

const EXPRESSION = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([^]*))?$/;

export function substituteVariables(text: string, env: Environment): SubstitutionResult {
  if (!text.includes("${")) return { ok: true, value: text }; // the common case: nothing to do
  let out = "";
  let at = 0;
  while (at < text.length) {
    const dollar = text.indexOf("$", at);
    if (dollar === -1) break;
    if (text.startsWith("$${", dollar)) {
      out += text.slice(at, dollar) + "${";
      at = dollar + 3;
      continue;
    }
    if (text[dollar + 1] !== "{") {
      out += text.slice(at, dollar + 1);
      at = dollar + 1;
      continue;
    }
    const close = text.indexOf("}", dollar + 2);
    if (close === -1) {
      return {
        ok: false,
        message: `unterminated "\${" in "${text}" (close it with "}", or write "$\${" for a literal "\${")`,
      };
    }
    const expression = text.slice(dollar + 2, close);
    const match = expression.includes("${") ? null : EXPRESSION.exec(expression);
    const name = match?.[1];
    if (!match || name === undefined) {
      return {
        ok: false,
        message: `invalid substitution "\${${expression}}": expected \${NAME} or \${NAME:-default}, where NAME is letters, digits and _ (write "$\${" for a literal "\${")`,
      };
    }
    const fallback = match[2];
    const value = env[name];
    let replacement: string;
    if (fallback !== undefined) {
      replacement = value === undefined || value === "" ? fallback : value;
    } else if (value === undefined) {
      return {
        ok: false,
        message: `environment variable ${name} is not set (use \${${name}:-default} to give a default)`,
        variable: name,
      };
    } else {
      replacement = value;
    }
    out += text.slice(at, dollar) + replacement;
    at = close + 1;
  }
  return { ok: true, value: out + text.slice(at) };
}
