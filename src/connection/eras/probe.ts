/**
 * The era probe (docs/SPEC-2026-07-28.md §3, §10): one `server/discover` with the full 2026 envelope, and what its answer
 * says about the server. It decides nothing: negotiate.ts turns each outcome into the next step.
 *
 * - a DiscoverResult naming a version we offer -> `modern`;
 * - -32022 naming a 2026 version we speak -> `retry` at that version;
 * - stdio: any other error, silence until the probe timeout, or the process exiting -> `legacy`;
 * - HTTP: 401/403 (authorization) and 5xx, silence or a network error (an outage) -> `fail`; another
 *   4xx without a 2026-era body -> `legacy`;
 * - versions, but none in common -> `fail` with an UnsupportedProtocolVersionError.
 */
import { ProtocolError, RequestTimeoutError, TransportError } from "../../jsonrpc/errors.js";
import type { McpError } from "../../jsonrpc/errors.js";
import { isObject } from "../../util/guards.js";
import type { NegotiationSettings, Result, Wire } from "./dialect.js";
import { UnsupportedProtocolVersionError, noMutualVersion } from "./era-errors.js";
import { buildEnvelope, withTasks } from "./modern-wire.js";
import { SUPPORTED_PROTOCOL_VERSIONS, isModern, mutualVersion, supportedVersionsOf } from "./versions.js";

export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

export type ProbeOutcome =
  /** The server answered a DiscoverResult naming a version we offer. */
  | { kind: "modern"; discover: Result }
  /** -32022 naming a 2026 version we speak: probe again at that version. */
  | { kind: "retry"; version: string }
  /** The answer of a 2025 server (or of a process that exited on the probe). */
  | { kind: "legacy"; why: string }
  /** Neither era can be concluded: the error is the connection's failure. */
  | { kind: "fail"; error: unknown };

export interface Probe {
  wire: Wire;
  /** The version the probe's envelope names. */
  version: string;
  /** The versions we offer, in our order of preference (one when a version is pinned). */
  ours: readonly string[];
  settings: NegotiationSettings | undefined;
  /** stdio: settles when the process exits during the probe (see negotiate.ts). */
  exit: Promise<McpError>;
}

export async function probe({ wire, version, ours, settings, exit }: Probe): Promise<ProbeOutcome> {
  const http = wire.transport.kind === "streamable-http";
  const timeoutMs = Math.min(settings?.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, settings?.handshakeTimeoutMs ?? wire.requestTimeoutMs);
  const capabilities = settings?.tasks ? withTasks(wire.clientCapabilities) : wire.clientCapabilities;
  const params = { _meta: buildEnvelope(version, capabilities, wire.clientInfo) };
  const send = http ? { headers: { "mcp-protocol-version": version, "mcp-method": "server/discover" }, resumable: false } : undefined;
  const { id, result } = wire.roundTripWithId("server/discover", params, { timeoutMs }, send);
  const answer = await Promise.race([
    result.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    ),
    exit.then((error) => ({ exit: error })),
  ]);
  if ("exit" in answer) {
    wire.forget(id, answer.exit);
    return { kind: "legacy", why: "the server process exited on server/discover" };
  }
  if ("value" in answer) return classifyResult(answer.value, ours);
  return classifyError(answer.error, http, wire.transport.identity);
}

function classifyResult(result: Result, ours: readonly string[]): ProbeOutcome {
  const versions = result.supportedVersions;
  if (!Array.isArray(versions) || !isObject(result.capabilities)) {
    return legacy("server/discover answered with something that is not a DiscoverResult");
  }
  if (mutualVersion(versions, ours) !== undefined) return { kind: "modern", discover: result };
  if (versions.some(isModern)) return { kind: "fail", error: noMutualVersion(result, ours) };
  return legacy(`the server lists only ${versions.join(", ")}`);
}

function classifyError(error: unknown, http: boolean, identity: string | undefined): ProbeOutcome {
  if (error instanceof ProtocolError) {
    const supported = supportedVersionsOf(error);
    // Only -32022 is evidence of the 2026 era; every other code is what a 2025 server says to an
    // unknown method (-32601, -32602, -32600, -32000 "not initialized", ...).
    if (supported === undefined) return legacy(`server/discover failed with ${error.code}: ${error.message}`);
    const mutual = mutualVersion(supported);
    if (mutual !== undefined) return { kind: "retry", version: mutual };
    if (!supported.some(isModern)) return legacy(`-32022 listing only ${supported.join(", ") || "nothing usable"}`);
    const message = `The server speaks ${supported.join(", ")}; this client speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}: no version in common`;
    return { kind: "fail", error: new UnsupportedProtocolVersionError(message, isObject(error.data) ? error.data : {}) };
  }
  if (error instanceof RequestTimeoutError) {
    if (!http) return legacy(`no answer to server/discover within ${error.timeoutMs} ms`);
    // Over HTTP a 2025 server answers an unknown method too, so silence is not an era: say what a person can check.
    const outage = new TransportError(
      `no answer from ${placeOf(identity)} within ${duration(error.timeoutMs)}: is it an MCP server? Check the URL and that it is running`,
      { cause: error, delivered: true },
    );
    return { kind: "fail", error: outage };
  }
  // 401/403 is authorization, not an era question; 5xx an outage; another 4xx a 2025 server.
  if (
    error instanceof TransportError &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 401 &&
    error.status !== 403
  ) {
    return legacy(`HTTP ${error.status} without a 2026-era error body`);
  }
  return { kind: "fail", error };
}

/**
 * A transport's identity as a person reads it: the URL for HTTP and WebSocket (an identity is a cache
 * key such as "http:http://host/mcp", not words for a message), the command line for stdio.
 */
export function placeOf(identity: string | undefined): string {
  if (identity === undefined) return "the server";
  const colon = identity.indexOf(":");
  const kind = identity.slice(0, colon);
  const rest = identity.slice(colon + 1);
  if (kind === "stdio") {
    try {
      const [command, args] = JSON.parse(rest) as [string, string[]];
      return [command, ...args].join(" ");
    } catch {
      return "the server";
    }
  }
  return kind === "http" || kind === "sse" || kind === "ws" ? rest : "the server";
}

/** 10000 -> "10 s", 2500 -> "2.5 s", 300 -> "300 ms". */
function duration(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

function legacy(why: string): ProbeOutcome {
  return { kind: "legacy", why };
}
