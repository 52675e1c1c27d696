/**
 * The table-driven checker behind `loadConfig`: a field table (config-fields.ts) says, per field,
 * what type and range it takes, whether `${VAR}` substitution applies and which kind of server it
 * belongs to; this module walks a value against it and throws a `ConfigError` at the first problem,
 * naming the file, the server, the field path ("restart.backoff.jitter", "args[2]", "env.TOKEN"),
 * what was expected and what was found, and the closest known name for a misspelt field.
 */
import { isAuthProvider } from "../auth/provider.js";
import { ConfigError, type ConfigErrorOptions } from "../jsonrpc/errors.js";
import type { AuthOption } from "../transports/auth.js";
import { substituteVariables, UnsetVariableError, type Environment } from "./config-substitute.js";

export type ServerKind = "stdio" | "remote";

declare const typeOf: unique symbol;
/** A type carried by a check for the compiler only (a code-only field's function type); never set at run time. */
export interface Typed<T> {
  readonly [typeOf]?: T;
}

export type Check =
  | { kind: "string"; nonEmpty?: boolean }
  | { kind: "boolean" }
  /** `allowInfinity`: code may pass Infinity for "no limit" (JSON cannot, and omits the field instead). */
  | { kind: "integer"; min: number; max?: number; allowInfinity?: boolean }
  | { kind: "number"; min: number; max?: number }
  | { kind: "enum"; values: readonly string[] }
  | { kind: "string-array"; nonEmpty?: boolean }
  | { kind: "string-map" }
  | { kind: "object"; fields: FieldTable; hints?: FieldHints }
  /** A list of objects, each checked against `fields` (VS Code's `inputs`). */
  | { kind: "object-array"; fields: FieldTable }
  /** The servers by name; config.ts checks each entry against `fields`, with the rules that span fields. */
  | { kind: "server-map"; fields: FieldTable }
  | ({ kind: "function" } & Typed<(...args: never[]) => unknown>)
  /** A URL target's `auth`: an AuthProvider such as oauth(), `{ token }`, or a function returning headers. */
  | { kind: "auth" };

export interface FieldSpec {
  check: Check;
  /** What the field is for: the schema's description (mcp.schema.json) and the README's wording. */
  description: string;
  /** `${VAR}` substitution applies (to the string, each element, or each value). */
  substitute?: boolean;
  /** The field only makes sense for this kind of server. */
  appliesTo?: ServerKind;
  /** config.ts takes only these strings (beyond `check`); the schema lists them so editors can offer them. */
  oneOf?: readonly string[];
}

export type FieldTable = Readonly<Record<string, FieldSpec>>;

/** A code-only function field of type `F` (JSON cannot hold one). */
export function functionCheck<F extends (...args: never[]) => unknown>(): { kind: "function" } & Typed<F> {
  return { kind: "function" };
}

/**
 * Declares a table, keeping its literal types (`kind`, enum values) so `InputOf` can read them; the
 * `const` type parameter does what `as const` would, and the constraint checks every spec.
 */
export function fieldTable<const T extends FieldTable>(table: T): T {
  return table;
}

/** The TypeScript type a check accepts. */
export type ValueOf<C extends Check> = C extends { kind: "string" }
  ? string
  : C extends { kind: "boolean" }
    ? boolean
    : C extends { kind: "integer" | "number" }
      ? number
      : C extends { kind: "enum"; values: readonly (infer V)[] }
        ? V
        : C extends { kind: "string-array" }
          ? string[]
          : C extends { kind: "string-map" }
            ? Record<string, string>
            : C extends { kind: "object"; fields: infer F extends FieldTable }
              ? InputOf<F>
              : C extends { kind: "object-array"; fields: infer F extends FieldTable }
                ? InputOf<F>[]
                : C extends { kind: "server-map"; fields: infer F extends FieldTable }
                  ? Record<string, InputOf<F>>
                  : C extends { kind: "function" } & Typed<infer F>
                    ? F
                    : C extends { kind: "auth" }
                      ? AuthOption
                      : never;

/**
 * What users write for a table: every field optional (the cross-field rules are config.ts's). A
 * homomorphic mapped type, so each field keeps the JSDoc written on it in the table.
 */
export type InputOf<T extends FieldTable> = { -readonly [K in keyof T]?: ValueOf<T[K]["check"]> };

/** Known misplacements: a field name users write here, and the path where it belongs ("tools.only"). */
export type FieldHints = Readonly<Record<string, string>>;

export type Path = ReadonlyArray<string | number>;

export interface CheckContext {
  file?: string | undefined;
  server?: string | undefined;
  env: Environment;
  /** False for disabled servers: their values stay as written, so they need no variables set. */
  substitute: boolean;
  /** Set once the server's kind is known, for `appliesTo`. */
  kind?: ServerKind;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/**
 * `["restart", "backoff", "jitter"]` -> "restart.backoff.jitter"; `["args", 2]` -> "args[2]";
 * keys that are not plain names in brackets: `["env", "a.b"]` -> "env['a.b']".
 */
export function formatPath(path: Path): string {
  let out = "";
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `['${segment}']`; // single quotes: messages already wrap the path in double quotes
  }
  return out;
}

export function fail(context: CheckContext, path: Path, message: string): never {
  throw new ConfigError(message, locationOf(context, path));
}
function locationOf(context: CheckContext, path: Path): ConfigErrorOptions {
  const field = path.length > 0 ? { field: formatPath(path) } : {};
  return { ...(context.file !== undefined ? { file: context.file } : {}), server: context.server, ...field };
}

/** How a found value reads in a message: `the string "5000"`, `42`, `null`, `an array`, ... */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string": {
      if (value === "") return "an empty string";
      const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
      return `the string ${JSON.stringify(shown)}`;
    }
    case "number":
    case "boolean":
      return String(value);
    case "function":
      return "a function";
    case "undefined":
      return "nothing";
    default:
      return "an object";
  }
}

function range(min: number, max: number | undefined): string {
  return max === undefined ? `>= ${min}` : `from ${min} to ${max}`;
}

/** How a check reads in a message: "an integer >= 1", "one of \"sse\", \"websocket\"", ... */
export function describeCheck(check: Check): string {
  switch (check.kind) {
    case "string":
      return check.nonEmpty ? "a non-empty string" : "a string";
    case "boolean":
      return "true or false";
    case "integer":
      return `an integer ${range(check.min, check.max)}`;
    case "number":
      return `a number ${range(check.min, check.max)}`;
    case "enum":
      return `one of ${check.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "string-array":
      return check.nonEmpty ? "an array of non-empty strings" : "an array of strings";
    case "string-map":
      return 'an object of strings ({ "NAME": "value" })';
    case "object":
      return "an object";
    case "object-array":
      return "an array of objects";
    case "server-map":
      return "an object of servers by name";
    case "function":
      return "a function";
    case "auth":
      return "oauth({...}), { token } or a function returning headers";
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------------------------------
// Suggestions for misspelt names
// ---------------------------------------------------------------------------------------------------

/** Optimal string alignment distance: edits, with a swap of neighbours counting as one. */
function editDistance(a: string, b: string): number {
  // One flat row-major table; every cell read has been written (row 0 and column 0 first).
  const width = b.length + 1;
  const d = new Array<number>((a.length + 1) * width).fill(0);
  const at = (i: number, j: number): number => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * width] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      d[i * width + j] = best;
    }
  }
  return at(a.length, b.length);
}

const fold = (name: string) => name.toLowerCase().replace(/[-_ ]/g, "");

/**
 * The known name `input` most likely meant: the same up to case, "-" and "_" (request_timeout_ms),
 * else the nearest by edit distance if within a third of its length; `undefined` when nothing is close.
 */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  const folded = fold(input);
  const same = candidates.find((candidate) => fold(candidate) === folded);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance <= Math.max(1, Math.floor(candidate.length / 3)) && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

// ---------------------------------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------------------------------

function unknownFieldMessage(key: string, table: FieldTable, hints: FieldHints | undefined): string {
  const hint = hints && Object.hasOwn(hints, key) ? hints[key] : undefined;
  if (hint !== undefined) {
    const dot = hint.lastIndexOf(".");
    return dot === -1 ? `unknown field; did you mean "${hint}"?` : `unknown field here; did you mean "${hint.slice(dot + 1)}" inside "${hint.slice(0, dot)}"?`;
  }
  const known = Object.keys(table);
  const close = closestName(key, known);
  if (close !== undefined) return `unknown field; did you mean "${close}"?`;
  return `unknown field (known fields: ${known.join(", ")})`;
}

/** Fails on the first key of `value` the table does not know, in the order they were written. */
export function rejectUnknownFields(value: Record<string, unknown>, table: FieldTable, path: Path, context: CheckContext, hints?: FieldHints): void {
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(table, key)) fail(context, [...path, key], unknownFieldMessage(key, table, hints));
  }
}

/**
 * Checks an object against a table and returns its fields, substituted where the table says so.
 * Absent (or `undefined`) fields are left out; the caller fills in defaults.
 */
export function checkObject(value: Record<string, unknown>, table: FieldTable, path: Path, context: CheckContext, hints?: FieldHints): Record<string, unknown> {
  rejectUnknownFields(value, table, path, context, hints);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const spec = table[key];
    if (value[key] === undefined || spec === undefined) continue; // unknown keys were rejected above
    const fieldPath = [...path, key];
    if (spec.appliesTo !== undefined && context.kind !== undefined && spec.appliesTo !== context.kind) {
      fail(context, fieldPath, notForThisKind(spec.appliesTo));
    }
    out[key] = checkValue(value[key], spec, fieldPath, context);
  }
  return out;
}

function notForThisKind(appliesTo: ServerKind): string {
  return appliesTo === "stdio"
    ? 'applies to stdio servers (with "command"); this server has "url"'
    : 'applies to remote servers (with "url"); this server has "command"';
}

function mismatch(context: CheckContext, path: Path, check: Check, found: unknown): never {
  const expected = describeCheck(check);
  if (check.kind === "enum" && typeof found === "string") {
    const close = closestName(found, check.values);
    if (close !== undefined) fail(context, path, `expected ${expected}, found ${describeValue(found)} (did you mean "${close}"?)`);
  }
  return fail(context, path, `expected ${expected}, found ${describeValue(found)}`);
}

/**
 * `checkObject` with its result typed by the table. This and `checkField` hold the checker's only type
 * assertions: each case of `checkValue` returns what `ValueOf` says for its kind (substituted strings
 * are still strings), but the compiler cannot follow a switch over a generic check to prove it.
 */
export function checkFields<T extends FieldTable>(value: Record<string, unknown>, table: T, path: Path, context: CheckContext, hints?: FieldHints): InputOf<T> {
  return checkObject(value, table, path, context, hints) as InputOf<T>;
}

/** One field of a table, checked and typed (see `checkFields`); not for "server-map", whose entries it leaves unchecked. */
export function checkField<T extends FieldTable, K extends keyof T & string>(
  table: T & Record<K, FieldSpec>,
  key: K,
  value: unknown,
  context: CheckContext,
): ValueOf<T[K]["check"]> {
  return checkValue(value, table[key], [key], context) as ValueOf<T[K]["check"]>;
}

export function checkValue(value: unknown, spec: FieldSpec, path: Path, context: CheckContext): unknown {
  const { check } = spec;
  switch (check.kind) {
    case "string":
      if (typeof value !== "string") mismatch(context, path, check, value);
      return checkString(value, spec, path, context);
    case "boolean":
      if (typeof value !== "boolean") mismatch(context, path, check, value);
      return value;
    case "integer": {
      if (typeof value !== "number") mismatch(context, path, check, value);
      if (check.allowInfinity && value === Infinity) return value;
      if (!Number.isInteger(value) || value < check.min || (check.max !== undefined && value > check.max)) {
        mismatch(context, path, check, value);
      }
      return value;
    }
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value) || value < check.min || (check.max !== undefined && value > check.max)) {
        mismatch(context, path, check, value);
      }
      return value;
    case "enum":
      if (typeof value !== "string" || !check.values.includes(value)) mismatch(context, path, check, value);
      return value;
    case "string-array": {
      if (!Array.isArray(value)) mismatch(context, path, check, value);
      const item: FieldSpec = { ...spec, check: { kind: "string", nonEmpty: check.nonEmpty === true } };
      return value.map((element, index) => {
        if (typeof element !== "string") mismatch(context, [...path, index], item.check, element);
        return checkString(element, item, [...path, index], context);
      });
    }
    case "string-map": {
      if (!isPlainObject(value)) mismatch(context, path, check, value);
      const item: FieldSpec = { ...spec, check: { kind: "string" } };
      // fromEntries defines own properties, so a "__proto__" key stays a key.
      return Object.fromEntries(
        Object.keys(value).map((key) => {
          const element = value[key];
          if (typeof element !== "string") mismatch(context, [...path, key], item.check, element);
          return [key, checkString(element, item, [...path, key], context)];
        }),
      );
    }
    case "object":
      if (!isPlainObject(value)) mismatch(context, path, check, value);
      return checkObject(value, check.fields, path, context, check.hints);
    case "object-array":
      if (!Array.isArray(value)) mismatch(context, path, check, value);
      return value.map((element, index) => {
        if (!isPlainObject(element)) mismatch(context, [...path, index], { kind: "object", fields: check.fields }, element);
        return checkObject(element, check.fields, [...path, index], context);
      });
    case "server-map":
      // Only the shape: config.ts checks each entry, as it knows the rules that span an entry's fields.
      if (!isPlainObject(value)) mismatch(context, path, check, value);
      return value;
    case "function":
      if (typeof value !== "function") mismatch(context, path, check, value);
      return value;
    case "auth":
      if (!(typeof value === "function" || isAuthProvider(value) || (isPlainObject(value) && typeof value.token === "string" && value.token !== ""))) {
        mismatch(context, path, check, value);
      }
      return value;
  }
}

function checkString(value: string, spec: FieldSpec, path: Path, context: CheckContext): string {
  const nonEmpty = spec.check.kind === "string" && spec.check.nonEmpty;
  if (nonEmpty && value === "") fail(context, path, "expected a non-empty string, found an empty string");
  if (!spec.substitute || !context.substitute) return value;
  const result = substituteVariables(value, context.env);
  if (!result.ok) {
    const where = locationOf(context, path);
    throw result.variable === undefined ? new ConfigError(result.message, where) : new UnsetVariableError(result.message, result.variable, where);
  }
  if (nonEmpty && result.value === "") {
    fail(context, path, `expected a non-empty string, found an empty string (after substituting ${JSON.stringify(value)})`);
  }
  return result.value;
}
