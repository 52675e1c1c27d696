/**
 * Which start failures no restart can fix. A child whose start fails this way goes `down` at once,
 * with a reason that says what to change, instead of burning its restart budget on a command that
 * does not exist or a token the server refuses.
 *
 * This is a different question from `McpError.retryable`, which is about routing ("may this request
 * go to another server?"): a primary whose command is missing is permanently broken, yet its calls
 * may still move to a fallback. So the answer lives here, not in that flag.
 *
 * Permanent:
 * - a `ConfigError` (a pinned protocol this client does not speak, a bad option);
 * - an `UnsupportedProtocolVersionError`: the server and this client share no protocol version;
 * - spawn `ENOENT` / `EACCES`: the command does not exist or may not be run;
 * - an `AuthRequiredError`, or HTTP 401 / 403: authorization required or refused;
 * - HTTP 404 on the endpoint at start (not a lost session): the URL is wrong. A server that is still
 *   being deployed can answer 404 for a while too; `restart.cooldownMs` covers that case.
 * Everything else (exit codes, refused connections, timeouts, 5xx) may be transient and is restarted.
 */
import { ConfigError, SessionExpiredError } from "../jsonrpc/errors.js";
import { UnsupportedProtocolVersionError } from "../connection/eras/era-errors.js";
import { display, isObject } from "../util/guards.js";

/** Why restarting cannot help, for `downReason` and the `down` event; undefined when it may. */
export function permanentStartFailure(error: unknown): string | undefined {
  // Wrappers keep the real failure as their cause (a connection error around a spawn error, ...).
  const chain: Record<string, unknown>[] = [];
  for (let current = error; chain.length < 5 && isObject(current); current = current.cause) chain.push(current);
  const url = chain.map((e) => e.url).find((u): u is string => typeof u === "string");
  for (const link of chain) {
    const reason = permanentReason(link, url);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

function permanentReason(error: Record<string, unknown>, url: string | undefined): string | undefined {
  const message = typeof error.message === "string" ? error.message : display(error);
  if (error instanceof ConfigError) return `configuration error: ${message}; fix the server's entry`;
  if (error instanceof UnsupportedProtocolVersionError) {
    return `no protocol version in common: ${message}; set "protocol" to "auto" or to a version the server speaks`;
  }
  if (error.name === "AuthRequiredError") {
    // The Switchboard's own wording already says which server and what to run (src/switchboard/server-runtime.ts).
    return message.startsWith("authorization required") ? message : `authorization required: ${message}; log in or fix the credentials`;
  }
  const spawnFailure = typeof error.syscall === "string" && error.syscall.startsWith("spawn");
  if (spawnFailure && error.code === "ENOENT") {
    return `command not found: ${String(error.path)} (ENOENT); check the "command" field, PATH and "cwd"${splitHint(String(error.path))}`;
  }
  if (spawnFailure && error.code === "EACCES") {
    return `permission denied running ${String(error.path)} (EACCES); make it executable or fix the "command" field`;
  }
  const where = url !== undefined ? ` from ${withoutQuery(url)}` : "";
  if (error.status === 401 || error.status === 403) {
    return `authorization refused (HTTP ${error.status}${where}); check the token or "headers", or log in again`;
  }
  if (error.status === 404 && !(error instanceof SessionExpiredError)) {
    return `endpoint not found (HTTP 404${where}); check the "url" field`;
  }
  return undefined;
}

/**
 * `"command": "npx -y @scope/server"` is one program name to the system. The words are not split for
 * the user: a path may hold spaces ("C:\\Program Files\\..."), and splitting needs quoting rules a JSON
 * array already gives; so the reason shows the entry as it should be written.
 */
function splitHint(command: string): string {
  const words = command.trim().split(/\s+/);
  if (words.length < 2) return "";
  const [program, ...args] = words;
  return `; put only the program in "command" and the rest in "args": "command": ${JSON.stringify(program)}, "args": [${args.map((arg) => JSON.stringify(arg)).join(", ")}]`;
}

/** A URL's query may carry a key; the reason is shown in events and status, so it keeps only the path. */
function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "the server";
  }
}
