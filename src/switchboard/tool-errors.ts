/**
 * The errors a call to a tool the board cannot run rejects with, in the words the model reads too (the
 * runners and runAgent pass the message on): a server that is not up is named with its state and its
 * last error (the stderr tail, or how it exited); a name no server has gets the closest names by edit
 * distance.
 */
import { distance } from "fastest-levenshtein";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ProtocolError, TransportError } from "../jsonrpc/errors.js";

/** Why a server is not up: its state (starting, restarting, down, stopped, disabled, idle) and its last error. */
export interface ServerUnavailableOptions {
  /** The server's name on the board. */
  server: string;
  /** Its state (a ServerState). */
  state: string;
  /** Why the supervisor gave up on it (a down server). */
  reason?: string | undefined;
  /** The error it last failed with: its message is the server's last words. */
  lastError?: Error | undefined;
  /** The qualified tool name the call asked for. */
  tool?: string | undefined;
  /** Says more than "is <state>" ("did not come up within 5000 ms (starting)"). */
  why?: string | undefined;
}

/**
 * A call for a server that is not up. Never delivered (it did not reach the server), and retryable:
 * the server may come back. `lastError` is the message of the error it last failed with.
 */
export class ServerUnavailableError extends TransportError {
  /** The server's state when the call came: starting, restarting, down, stopped, disabled or idle. */
  readonly state: string;
  /** The message of the error the server last failed with (how it exited, and the tail of its stderr). */
  readonly lastError: string | undefined;
  /** The qualified name of the tool the call was for, when a tool call. */
  readonly tool: string | undefined;

  constructor(options: ServerUnavailableOptions) {
    const { server, state, reason, lastError, tool } = options;
    const why = options.why ?? `is ${state === "down" && reason !== undefined ? `down: ${reason}` : state}`;
    const last = lastError !== undefined && lastError.message !== reason ? ` (last error: ${lastError.message})` : "";
    const about = tool === undefined ? "" : `${tool} cannot run: `;
    super(`${about}server "${server}" ${why}${last}`, { delivered: false, server, cause: lastError });
    this.state = state;
    this.lastError = lastError?.message;
    this.tool = tool;
  }
}

/** A tool name nothing on the board (or the offered list) has; `suggestions` are the closest names, closest first. */
export class UnknownToolError extends ProtocolError {
  /** The name asked for. */
  readonly tool: string;
  /** The closest names there are, closest first (at most 3; none when nothing is close). */
  readonly suggestions: string[];

  constructor(tool: string, suggestions: string[], detail = "") {
    const mean = suggestions.length === 0 ? "" : `; did you mean ${suggestions.map((name) => `"${name}"`).join(", ")}?`;
    super(`No tool named ${tool} is available${detail}${mean}`, ErrorCode.InvalidParams);
    this.tool = tool;
    this.suggestions = suggestions;
  }
}

/**
 * The names among `known` closest to `name` by edit distance, closest first, at most `limit`. A name
 * counts as close when at most a third of what follows the beginning it shares with `name` (and at
 * least 2 characters) would change: measured against the whole name, a shared `server__` prefix let
 * `inventory__add` pass for `inventory__ech`, and farther suggestions send a model to the wrong tool.
 */
export function closestNames(name: string, known: Iterable<string>, limit = 3): string[] {
  const near: Array<{ name: string; distance: number }> = [];
  for (const candidate of new Set(known)) {
    if (candidate === name) continue;
    let shared = 0;
    while (shared < name.length && name[shared] === candidate[shared]) shared++;
    const most = Math.max(2, Math.floor((name.length - shared) / 3));
    if (Math.abs(candidate.length - name.length) > most) continue;
    const d = distance(name, candidate);
    if (d <= most) near.push({ name: candidate, distance: d });
  }
  near.sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return near.slice(0, limit).map((entry) => entry.name);
}
