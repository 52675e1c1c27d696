/**
 * The config files people already have, read as they are: VS Code's `mcp.json` (`servers`, plus
 * `inputs` that entries use as `${input:id}`) and Claude Desktop's or Cursor's files (`mcpServers` next
 * to the host's own settings, such as `globalShortcut`).
 *
 * - `${input:id}`: the value comes from the `inputs` handler given to `loadConfig` (asked once per id,
 *   only for ids an enabled server uses), else from the environment variable `MCP_INPUT_<ID>`. Nothing
 *   here prompts on a terminal: a library must not read stdin behind its caller's back.
 * - Top-level keys this format does not know are another host's settings: ignored, with one warning
 *   naming them all. A key a known one is a misspelling of ("seperator") stays an error, as it is
 *   a mistake, not another host's setting.
 */
import { SERVER_MAP_KEYS, TOP_LEVEL_FIELDS } from "./config-fields.js";
import { closestName, fail, isPlainObject, type CheckContext } from "./config-validate.js";

/** One of VS Code's `inputs`, as the handler gets it. */
export interface ConfigInputRequest {
  /** The name in `${input:id}`. */
  id: string;
  /** "promptString": any text; "pickString": one of `options`. */
  type: "promptString" | "pickString";
  /** What to ask the person for. */
  description?: string | undefined;
  /** The value is a secret: do not echo it. */
  password?: boolean | undefined;
  /** The value when the person gives none. */
  default?: string | undefined;
  /** pickString: the values to pick from. */
  options?: string[] | undefined;
}

/** Answers `${input:id}`: the value of one input (asked once per id). */
export type ConfigInputHandler = (input: ConfigInputRequest) => string | Promise<string>;

const INPUT_REFERENCE = /\$\{input:([^}]*)\}/g;

/** The environment variable an input falls back to: `MCP_INPUT_` and the id, upper-cased, other characters as `_`. */
export function inputVariable(id: string): string {
  return `MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9_]/g, "_")}`;
}

/**
 * Asks the handler for every input an enabled server uses and writes the answers in (as literal text:
 * a `${` in an answer is escaped, so it is never read as a variable). Async, so `loadConfig` runs it
 * before the synchronous checks; what is left is read from the environment by `fromHosts`.
 */
export async function askInputs(value: unknown, handler: ConfigInputHandler | undefined): Promise<unknown> {
  if (handler === undefined || !isPlainObject(value) || !Array.isArray(value.inputs)) return value;
  const declared = new Map<string, ConfigInputRequest>();
  for (const input of value.inputs) if (isPlainObject(input) && typeof input.id === "string") declared.set(input.id, input as unknown as ConfigInputRequest);
  const answers = new Map<string, string>();
  for (const id of usedInputs(value)) {
    const input = declared.get(id);
    if (input === undefined || answers.has(id)) continue; // an undeclared id is reported by fromHosts
    const answer: unknown = await handler(input);
    // Not a string: left for fromHosts, which reports it missing rather than writing "[object Object]".
    if (typeof answer === "string") answers.set(id, answer);
  }
  return mapServerStrings(value, (text) => text.replace(INPUT_REFERENCE, (whole, id: string) => answers.get(id)?.replaceAll("${", () => "$${") ?? whole));
}

/**
 * The config with other hosts' top-level keys dropped (one warning) and `${input:id}` replaced from the
 * environment; `inputs` itself is checked by the field table and then no longer needed.
 */
export function fromHosts(input: Record<string, unknown>, context: CheckContext, onWarning: ((message: string) => void) | undefined): Record<string, unknown> {
  const known = Object.keys(TOP_LEVEL_FIELDS);
  const foreign = Object.keys(input).filter((key) => !Object.hasOwn(TOP_LEVEL_FIELDS, key) && closestName(key, known) === undefined);
  let out = input;
  if (foreign.length > 0 && SERVER_MAP_KEYS.some((key) => input[key] !== undefined)) {
    out = Object.fromEntries(Object.entries(input).filter(([key]) => !foreign.includes(key)));
    const where = context.file !== undefined ? `${context.file}: ` : "";
    warn(
      onWarning,
      `${where}ignoring top-level ${foreign.length === 1 ? "key" : "keys"} ${foreign.map((key) => `"${key}"`).join(", ")} (another host's settings); only the servers are read`,
    );
  }
  // Without "inputs" nothing is an input: a stray ${input:id} is then the substitution's error, like any other syntax.
  if (!Array.isArray(input.inputs)) return out;
  const declared = new Set(input.inputs.map((entry) => (isPlainObject(entry) ? entry.id : undefined)));
  return mapServerStrings(out, (text, server) =>
    text.replace(INPUT_REFERENCE, (_whole, id: string) => {
      const at = { ...context, server };
      if (!declared.has(id)) fail(at, [], `\${input:${id}} names no input: declare { "id": "${id}", "type": "promptString" } in the top-level "inputs"`);
      const value = context.env[inputVariable(id)];
      if (value === undefined)
        fail(at, [], `\${input:${id}} has no value: set the environment variable ${inputVariable(id)}, or give loadConfig an inputs handler`);
      return value.replaceAll("${", () => "$${");
    }),
  );
}

function warn(onWarning: ((message: string) => void) | undefined, message: string): void {
  if (onWarning !== undefined) onWarning(message);
  else process.emitWarning(message, { type: "McpSwitchboardConfigWarning" });
}

/** The ids of `${input:id}` in the strings of enabled servers. */
function usedInputs(value: Record<string, unknown>): Set<string> {
  const ids = new Set<string>();
  mapServerStrings(value, (text) => {
    for (const [, id] of text.matchAll(INPUT_REFERENCE)) if (id !== undefined) ids.add(id);
    return text;
  });
  return ids;
}

/**
 * The config with `change` applied to every string of every enabled server entry (nested ones too);
 * a disabled server keeps its values as written, as with `${VAR}`. Only for configs that declare
 * `inputs`: JSON files, so plain data without cycles.
 */
function mapServerStrings(value: Record<string, unknown>, change: (text: string, server: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  for (const key of SERVER_MAP_KEYS) {
    const map = value[key];
    if (!isPlainObject(map)) continue;
    out[key] = Object.fromEntries(
      Object.entries(map).map(([server, entry]) => [
        server,
        isPlainObject(entry) && entry.disabled === true ? entry : deepMap(entry, (text) => change(text, server)),
      ]),
    );
  }
  return out;
}

function deepMap(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === "string") return change(value);
  if (Array.isArray(value)) return value.map((item) => deepMap(item, change));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, deepMap(item, change)]));
  return value;
}
