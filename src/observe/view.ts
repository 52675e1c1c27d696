/**
 * What the page is sent: plain JSON built from the board's public facts, field by field, so nothing the
 * observer was not written to show (a config's env, headers, tokens, a session id) can reach it. Error
 * texts are cut to their first line (a stdio exit carries the server's stderr on the lines after it) and
 * every string the caller named secret is replaced before a byte leaves.
 */
import type { GatewaySessionsView } from "./gateway-sessions.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import type { SwitchboardConfig } from "../switchboard/config-types.js";
import type { Block, TraceMessage } from "../agents/trace.js";
import type { RunView } from "./agent-runs.js";
import type { Series } from "./stats.js";
import type { FleetView } from "./fleet-view.js";

export const TEXT_LIMIT = 240;
const HIDDEN = "(hidden: captureToolContent is off)";

export interface Session {
  transport: string;
  era: string | undefined;
  protocolVersion: string | undefined;
  /** stdio: the server process. */
  pid: number | undefined;
  /** An HTTP session was given (its id is never shown: some servers treat it as a credential). */
  session: boolean;
  server: string | undefined;
}

export interface ServerView {
  name: string;
  state: string;
  restarts: number;
  lastExit: { at: number; reason: string } | undefined;
  lastError: string | undefined;
  downReason: string | undefined;
  circuit: string;
  /** Calls sent to the server and not answered yet. */
  inFlight: number;
  /** Calls waiting for this process's own `maxConcurrency`. */
  queued: number;
  /** Calls waiting for the fleet (a permit, a rate-limit slot, a pause), not sent yet. */
  waiting: number;
  /** The fleet paused the server (Retry-After). */
  paused: boolean;
  /** The fleet-wide `maxConcurrency` (undefined: no fleet limit). */
  fleetLimit: number | undefined;
  /** Calls this process refused without sending them (an open circuit, a wait past the call's timeout); not in the call stats. */
  refused: number;
  fallbacks: string[];
  /** The live session, or the last one seen while the server is away (`live: false`). */
  session: (Session & { live: boolean }) | undefined;
  stats: Series;
}

export interface CallView {
  at: number;
  name: string;
  server: string | undefined;
  ms: number;
  /** `refused`: this process refused the call without sending it (an open circuit, a wait past its timeout). */
  outcome: "ok" | "error" | "failed" | "refused";
  error: string | undefined;
  args: string | undefined;
  /** A code-mode call's source (its `code` argument) as written, when arguments are shown. */
  code: string | undefined;
}

export interface LifecycleView {
  at: number;
  server: string;
  event: string;
  detail: string;
}

export interface Snapshot {
  at: number;
  separator: string;
  captureToolContent: boolean;
  servers: ServerView[];
  calls: CallView[];
  lifecycle: LifecycleView[];
  runs: Array<Omit<RunView, "messages"> & { messages: TraceMessage[] }>;
  /** The board's fleet, every process of it (undefined: the board has no fleet). */
  fleet: FleetView | undefined;
  /** The sessions of the gateways serving the board (gateway-sessions.ts; undefined: none serves it). */
  gateway?: GatewaySessionsView | undefined;
}

/** The session facts a live client offers (board.client(name)), or undefined while the server is not up. */
export function sessionOf(board: Switchboard, name: string): Session | undefined {
  const client = board.client(name);
  if (client === undefined) return undefined;
  const transport = client.connection.transport;
  return {
    transport: transport.kind,
    era: client.era,
    protocolVersion: client.protocolVersion,
    pid: transport.pid,
    session: transport.sessionId !== undefined,
    server: client.serverInfo ? `${client.serverInfo.name} ${client.serverInfo.version}`.slice(0, TEXT_LIMIT) : undefined,
  };
}

/**
 * The first line of an error's text, bounded. The lines after it stay off the page (a stdio exit's
 * stderr may hold anything the server printed), and a line that announced them says so instead of
 * ending in "Last stderr:" with nothing after it.
 */
export function firstLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const line = (text.split("\n", 1)[0] ?? "").replace(/\.? Last stderr:$/, " (its stderr is not shown here)");
  return line.length > TEXT_LIMIT ? `${line.slice(0, TEXT_LIMIT)}…` : line;
}

/** A code-mode call's source (a `run_code` tool's `code` argument), bounded, when arguments are shown. */
export function codeText(name: string, args: Record<string, unknown> | undefined, capture: boolean): string | undefined {
  if (!capture || !name.endsWith("run_code") || typeof args?.code !== "string") return undefined;
  return args.code.length > TEXT_LIMIT * 16 ? `${args.code.slice(0, TEXT_LIMIT * 16)}…` : args.code;
}

/** Arguments as the page shows them: JSON, bounded, or nothing when content capture is off. */
export function argsText(args: unknown, capture: boolean): string | undefined {
  if (!capture || args === undefined) return undefined;
  let text: string;
  try {
    text = JSON.stringify(args) ?? "";
  } catch {
    text = "(not JSON)";
  }
  return text.length > TEXT_LIMIT * 4 ? `${text.slice(0, TEXT_LIMIT * 4)}…` : text;
}

/** A run's messages with tool content hidden unless captured; text and thinking are the conversation itself. */
export function runMessages(messages: readonly TraceMessage[], capture: boolean): TraceMessage[] {
  return messages.map((message) => ({ role: message.role, content: message.content.map((block) => shownBlock(block, capture)) }));
}

function shownBlock(block: Block, capture: boolean): Block {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return { type: "thinking", text: block.text };
    case "tool_use":
      return { type: "tool_use", id: block.id, name: block.name, input: capture ? block.input : HIDDEN };
    case "tool_result":
      return { type: "tool_result", toolUseId: block.toolUseId, isError: block.isError, content: capture ? block.content : [{ type: "text", text: HIDDEN }] };
  }
}

/** Replaces every secret (and its JSON-escaped form) in a payload about to be sent. */
export class Redactor {
  private readonly needles: string[];
  constructor(secrets: readonly string[]) {
    // Short strings ("1", "true") would blank innocent text and protect nothing.
    const long = secrets.filter((secret) => typeof secret === "string" && secret.length >= 6);
    this.needles = [...new Set(long.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))].sort((a, b) => b.length - a.length);
  }
  apply(text: string): string {
    let out = text;
    for (const needle of this.needles) if (out.includes(needle)) out = out.replaceAll(needle, "[redacted]");
    return out;
  }
}

/** The values in a config that are secret or may be: env values, header values, auth and OAuth strings, URL credentials and query values. */
export function secretsOf(config: SwitchboardConfig): string[] {
  const secrets: string[] = [];
  // Bounded depth: an `auth` written in code may be a provider object with cycles.
  const strings = (value: unknown, depth = 0): void => {
    if (typeof value === "string") secrets.push(value);
    else if (typeof value === "object" && value !== null && depth < 4) for (const inner of Object.values(value)) strings(inner, depth + 1);
  };
  for (const entry of Object.values(config.servers)) {
    const fields = entry as unknown as Record<string, unknown>;
    if (Array.isArray(fields.args)) secrets.push(...secretArgsOf(fields.args.filter((arg): arg is string => typeof arg === "string")));
    strings(fields.env);
    strings(fields.headers);
    strings(fields.auth);
    strings(fields.oauth);
    if (typeof fields.url === "string") {
      try {
        const url = new URL(fields.url);
        if (url.password) secrets.push(decodeURIComponent(url.password), url.password);
        for (const value of url.searchParams.values()) secrets.push(value);
      } catch {
        // A URL the loader accepted always parses; nothing to add otherwise.
      }
    }
  }
  // "Bearer <token>": the token alone may appear elsewhere (a call's arguments, an echo).
  const words = secrets.flatMap((secret) => secret.split(/\s+/)).filter((word) => !AUTH_SCHEMES.test(word));
  return [...secrets, ...words];
}

const AUTH_SCHEMES = /^(bearer|basic|dpop|digest|token)$/i;
const SECRET_NAME = /token|secret|passw|api[-_]?key|auth|credential/i;

/**
 * A command line's secrets, by their names: the value after `--api-key`, or in `--token=...` and
 * `API_KEY=...`. A stdio server's exit message names its command line, so these would reach the page.
 */
export function secretArgsOf(args: readonly string[]): string[] {
  const found: string[] = [];
  args.forEach((arg, i) => {
    const equals = arg.indexOf("=");
    if (equals > 0 && SECRET_NAME.test(arg.slice(0, equals))) found.push(arg.slice(equals + 1));
    else if (arg.startsWith("-") && SECRET_NAME.test(arg) && args[i + 1] !== undefined) found.push(args[i + 1]!);
  });
  return found;
}
