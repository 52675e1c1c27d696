/**
 * Failures that belong to protocol eras and their negotiation. All are `McpError`s (most are
 * `ProtocolError`s carrying the JSON-RPC code), so callers can catch them like any other.
 */
import { ErrorCode } from "../../jsonrpc/codes.js";
import { ConnectionClosedError, McpError, MethodNotSupportedError, ProtocolError, StreamLostError, TransportError } from "../../jsonrpc/errors.js";
import { isObject } from "../../util/guards.js";
import type { Result } from "./dialect.js";

/** No protocol version both sides speak (-32022 without overlap, or a pinned version the server lacks). */
export class UnsupportedProtocolVersionError extends ProtocolError {
  constructor(message: string, data: { supported?: unknown; requested?: unknown }) {
    super(message, ErrorCode.UnsupportedProtocolVersion, data);
  }
}

/** A DiscoverResult (probed or remembered) that names no 2026-era version in `ours`. */
export function noMutualVersion(discover: Result, ours: readonly string[]): UnsupportedProtocolVersionError {
  const theirs = Array.isArray(discover.supportedVersions) ? discover.supportedVersions : [];
  return new UnsupportedProtocolVersionError(
    `The server speaks ${theirs.join(", ") || "no version it named"}; this client offers ${ours.join(", ")}: no 2026-era version in common`,
    {
      supported: theirs,
      requested: ours[0],
    },
  );
}

/** A method the negotiated era does not have, refused before any round trip. */
export function notInEra(method: string, era: string, version: string): MethodNotSupportedError {
  return new MethodNotSupportedError(`${method} does not exist in protocol ${version} (${era} era); the connection negotiated that version with the server`, {
    method,
    protocolVersion: version,
  });
}

/** The server kept answering `input_required` beyond the rounds limit. `lastResult` is its last answer. */
export class InputRequiredRoundsError extends McpError {
  constructor(
    message: string,
    readonly rounds: number,
    readonly lastResult: Result,
  ) {
    super(message, { retryable: false, delivered: true });
  }
}

/** resources/read of a URI the server does not have (-32602 in 2026-07-28, -32002 from 2025 servers). */
export class ResourceNotFoundError extends ProtocolError {
  constructor(
    message: string,
    code: number,
    readonly uri: string,
    data?: unknown,
  ) {
    super(message, code, data);
  }
}

/** Turns the not-found answers of both eras into one `ResourceNotFoundError`; other errors pass. */
export function asResourceNotFound(error: unknown, uri: unknown): unknown {
  if (!(error instanceof ProtocolError) || error instanceof ResourceNotFoundError) return error;
  const notFound =
    error.code === ErrorCode.ResourceNotFound || (error.code === ErrorCode.InvalidParams && (hasUri(error.data) || /not found/i.test(error.message)));
  if (!notFound) return error;
  return new ResourceNotFoundError(`Resource not found: ${String(uri)} (${error.message})`, error.code, String(uri), error.data);
}

function hasUri(data: unknown): boolean {
  return isObject(data) && typeof data.uri === "string";
}

/** The exchange broke before its response (stream cut, socket reset): the request may or may not have run. */
export function lostOnTheWay(error: unknown): boolean {
  if (error instanceof StreamLostError) return true;
  return error instanceof TransportError && !(error instanceof ConnectionClosedError) && error.status === undefined && error.retryable;
}

/**
 * What 2025 servers answer to a request without `initialize` or a session ("Bad Request: Server not
 * initialized", "No valid session ID provided", "Received request before initialization was complete").
 */
const NOT_INITIALIZED = /not initiali[sz]ed|before initiali[sz]ation|session/i;

/**
 * Whether an error is evidence of a 2025 server: a server error below the 2026 era's own codes
 * (-32000..-32019) or an invalid request (-32600) that says so in words. The codes alone are not: a
 * 2026 server's tools fail with generic -32000 or -32600 errors too, and dropping the era verdict on
 * those sent every later connection back to probing.
 */
export function looksLegacy(error: ProtocolError): boolean {
  const code = error.code;
  const serverError = code <= ErrorCode.ServerError && code > ErrorCode.HeaderMismatch;
  if (!(serverError || code === ErrorCode.InvalidRequest)) return false;
  return NOT_INITIALIZED.test(error.message);
}

export function invalidResult(method: string, result: Result, why: string): ProtocolError {
  return new ProtocolError(`Invalid result for ${method}: ${why}`, ErrorCode.InternalError, { resultType: result.resultType });
}

export function missingCapabilities(method: string, error: ProtocolError): ProtocolError {
  const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  return new ProtocolError(
    `${method}: the server requires client capabilities this client did not declare: ${JSON.stringify(required ?? "(not named)")}. ` +
      "Give connect() the matching handler (onSampling, onElicitation, onRoots) or declare them in capabilities.",
    ErrorCode.MissingRequiredClientCapability,
    error.data,
  );
}
