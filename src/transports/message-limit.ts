/**
 * `maxMessageBytes`: the one size limit for a message from a server, on every transport (stdio lines,
 * HTTP bodies and events, WebSocket frames), and the error that names it. Also the bound the other way:
 * `maxPendingWriteBytes`, what may wait to be written to a peer that stopped reading.
 */
import { ConfigError, MessageTooLargeError, OverloadError } from "../jsonrpc/errors.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../framing/oversize.js";

export { DEFAULT_MAX_MESSAGE_BYTES };

/**
 * `where` says who sent it: `POST https://host/mcp`, `MCP server "node server.js"`, a WebSocket URL.
 * `bytes` is how much had arrived when the limit was passed (the message may be longer).
 */
export function messageTooLarge(where: string, bytes: number, limit: number, options: { url?: string; cause?: unknown } = {}): MessageTooLargeError {
  return new MessageTooLargeError(
    `${where} sent a message of at least ${bytes} bytes, over the limit of ${limit} bytes (maxMessageBytes); the client dropped it. ` +
      `Raise maxMessageBytes (a connect() option, or the server's config field) if the server really sends messages this large.`,
    limit,
    options,
  );
}

/** The limit an option asks for (a positive integer; Infinity turns the limit off), or the default. */
export function messageLimit(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_MESSAGE_BYTES;
  if (value === Infinity) return Number.MAX_SAFE_INTEGER;
  if (!Number.isInteger(value) || value <= 0) {
    throw new ConfigError(`maxMessageBytes must be a positive integer (bytes), got ${String(value)}`, { field: "maxMessageBytes" });
  }
  return value;
}

/** What may wait to be written to a peer that does not read (stdio, WebSocket): far more than any burst of requests. */
export const DEFAULT_MAX_PENDING_WRITE_BYTES = 32 * 1024 * 1024;

/** The error for a send refused because `backlog` bytes already wait for a peer that is not reading. */
export function notReading(who: string, backlog: number, limit: number): OverloadError {
  const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;
  return new OverloadError(`${who} is not reading: ${mib(backlog)} wait to be written (limit: maxPendingWriteBytes, ${mib(limit)}); message not sent`);
}
