/**
 * The error classes users catch. Every failure of a request is one of these, so a caller (or the
 * supervisor) can decide from two fields whether trying elsewhere is safe:
 * - `retryable`: the failure is about where the request went (transport, overload), not what it asked;
 * - `delivered`: `false` only where the request provably never reached the server; `true` where it may
 *   have run there (so re-sending it is safe only for idempotent work).
 */
import { ErrorCode } from "./codes.js";
import type { JsonRpcErrorObject } from "./messages.js";

export interface McpErrorOptions {
  cause?: unknown;
  retryable?: boolean;
  delivered?: boolean;
  /** The server (by Switchboard name) the failure came from, when known. */
  server?: string | undefined;
}

export class McpError extends Error {
  retryable: boolean;
  delivered: boolean;
  server?: string | undefined;
  constructor(message: string, options: McpErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.retryable = options.retryable ?? false;
    this.delivered = options.delivered ?? true;
    if (options.server !== undefined) this.server = options.server;
  }
}

export interface TransportErrorOptions extends McpErrorOptions {
  /** stdio: the exit code of the server process, when it exited. */
  exitCode?: number | null;
  /** stdio: the signal that ended the server process, when one did. */
  signal?: NodeJS.Signals | null;
  /** stdio: the tail of what the server wrote to stderr. */
  stderr?: string;
  /** HTTP: the URL that failed. */
  url?: string;
  /** HTTP: the response status. */
  status?: number;
  /** HTTP: the start of the response body (bounded). */
  body?: string;
  /** HTTP 429/503: how long the server asked us to wait (its Retry-After), in ms. */
  retryAfterMs?: number;
}

/** The channel to the server failed: refused, exited, stream lost, send failed. Retryable elsewhere. */
export class TransportError extends McpError {
  exitCode?: number | null;
  signal?: NodeJS.Signals | null;
  stderr?: string;
  url?: string;
  status?: number;
  body?: string;
  retryAfterMs?: number;
  constructor(message: string, options: TransportErrorOptions = {}) {
    super(message, { retryable: true, ...options });
    if (options.exitCode !== undefined) this.exitCode = options.exitCode;
    if (options.signal !== undefined) this.signal = options.signal;
    if (options.stderr !== undefined) this.stderr = options.stderr;
    if (options.url !== undefined) this.url = options.url;
    if (options.status !== undefined) this.status = options.status;
    if (options.body !== undefined) this.body = options.body;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }
}

/** The connection closed (by the caller or because the transport died) while the request was pending. */
export class ConnectionClosedError extends TransportError {}

/**
 * The response stream of a request broke before its response and could not be resumed (the 2026 era
 * has no resumption). The request may have run (`delivered`); re-sending it is safe only for reads.
 */
export class StreamLostError extends TransportError {}

/**
 * A message from the server was larger than `maxMessageBytes`, so the client stopped reading it. The
 * request it answered fails with this; retrying would bring the same answer, so it is not retryable.
 */
export class MessageTooLargeError extends TransportError {
  /** The limit that was passed, in bytes. */
  readonly limit: number;
  constructor(message: string, limit: number, options: TransportErrorOptions = {}) {
    super(message, { retryable: false, delivered: true, ...options });
    this.limit = limit;
  }
}

/** An HTTP session the server no longer knows (404 on a request that carried Mcp-Session-Id). */
export class SessionExpiredError extends TransportError {}

/** No response within the deadline. The request was sent, so it may have run. */
export class RequestTimeoutError extends McpError {
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, options: McpErrorOptions = {}) {
    super(message, { retryable: true, delivered: true, ...options });
    this.timeoutMs = timeoutMs;
  }
}

/** The caller aborted the request (AbortSignal), or the server cancelled it. */
export class RequestCancelledError extends McpError {
  constructor(message: string, options: McpErrorOptions = {}) {
    super(message, { retryable: false, ...options });
  }
}

/** The server answered with a JSON-RPC error. */
export class ProtocolError extends McpError {
  readonly code: number;
  readonly data?: unknown;
  constructor(message: string, code: number, data?: unknown, options: McpErrorOptions = {}) {
    super(message, { retryable: false, ...options });
    this.code = code;
    if (data !== undefined) this.data = data;
  }
  static fromWire(error: JsonRpcErrorObject, method?: string): ProtocolError {
    const where = method ? ` (${method})` : "";
    return new ProtocolError(`Server error ${error.code}${where}: ${error.message}`, error.code, error.data);
  }
}

/**
 * The method is not available: the server did not declare the capability, or the negotiated protocol
 * era has no such method. Raised locally, before any round trip.
 */
export class MethodNotSupportedError extends ProtocolError {
  constructor(message: string, data?: unknown) {
    super(message, ErrorCode.MethodNotFound, data);
  }
}

/**
 * A request whose params cannot be written as JSON (a BigInt, a cycle, nesting too deep for the
 * encoder). Raised locally: it was never sent, says nothing of the server (no fallback, no circuit
 * breaker count), and fails the same way anywhere, so it is not retryable. Fix the arguments.
 */
export class EncodingError extends ProtocolError {
  constructor(message: string, options: McpErrorOptions = {}) {
    super(message, ErrorCode.InvalidParams, undefined, { delivered: false, ...options });
  }
}

/** A tool returned `isError: true` and the caller asked for that to throw. Never retried elsewhere. */
export class ToolError extends McpError {
  readonly result: unknown;
  readonly tool: string;
  constructor(message: string, tool: string, result: unknown, options: McpErrorOptions = {}) {
    super(message, { retryable: false, ...options });
    this.tool = tool;
    this.result = result;
  }
}

/** The server (or the local concurrency limit) refused to take more work right now. */
export class OverloadError extends McpError {
  constructor(message: string, options: McpErrorOptions = {}) {
    super(message, { retryable: true, delivered: false, ...options });
  }
}

export interface ConfigErrorOptions {
  file?: string;
  server?: string | undefined;
  field?: string;
  cause?: unknown;
}

/** A configuration is wrong. The message names the file, the server and the field. */
export class ConfigError extends McpError {
  readonly file?: string;
  readonly field?: string;
  constructor(message: string, options: ConfigErrorOptions = {}) {
    const where = [
      options.file !== undefined ? `${options.file}` : undefined,
      options.server !== undefined ? `server "${options.server}"` : undefined,
      options.field !== undefined ? `field "${options.field}"` : undefined,
    ].filter(Boolean);
    super(where.length ? `${where.join(", ")}: ${message}` : message, {
      retryable: false,
      delivered: false,
      cause: options.cause,
      server: options.server,
    });
    if (options.file !== undefined) this.file = options.file;
    if (options.field !== undefined) this.field = options.field;
  }
}

/** Why a skill (SEP-2640) or one of its files was refused. */
export type SkillVerificationReason = "digest" | "size" | "frontmatter" | "unlisted" | "unverifiable" | "invalid-entry";

export interface SkillVerificationErrorOptions extends McpErrorOptions {
  /** The skill's SKILL.md URI. */
  skill: string;
  /** The file that failed (the SKILL.md itself or a supporting file). */
  file?: string;
  reason: SkillVerificationReason;
}

/**
 * A skill's content is not what its entry (`skills/list`, `skills/get`) promised: another digest or
 * byte length, other frontmatter, a file the entry does not list, or an entry without digests. The
 * content was not used. Not retryable elsewhere: refresh the entry (`getSkill`) and load again.
 */
export class SkillVerificationError extends McpError {
  readonly skill: string;
  readonly file?: string;
  readonly reason: SkillVerificationReason;
  constructor(message: string, options: SkillVerificationErrorOptions) {
    super(message, { retryable: false, delivered: true, ...options });
    this.skill = options.skill;
    if (options.file !== undefined) this.file = options.file;
    this.reason = options.reason;
  }
}
