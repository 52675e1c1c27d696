/**
 * Era negotiation for `"auto"` and pinned 2026 versions (SPEC §3, §10). Auto probes with
 * `server/discover` and classifies the answer:
 * - a DiscoverResult naming a version we speak -> 2026 era;
 * - -32022 naming a mutual 2026 version -> one corrective probe at that version (never `initialize`);
 * - stdio: any other error, silence until the probe timeout, or the process exiting -> 2025 era
 *   (respawned first if it exited), via `initialize`;
 * - HTTP: 401/403 is an auth failure and 5xx or a network error an outage (no fallback); another 4xx
 *   without a 2026 body -> `initialize`, and if that fails with 400/404/405, the old HTTP+SSE transport.
 * Verdicts are cached per server identity; a prior verdict skips the probe.
 */
import { ConfigError, McpError, ProtocolError, RequestTimeoutError, TransportError } from "../../jsonrpc/errors.js";
import { autoListenFilter } from "./auto-listen.js";
import type { Implementation, Negotiated, NegotiationContext, Result, Wire } from "./dialect.js";
import { UnsupportedProtocolVersionError, supportedVersionsOf } from "./era-errors.js";
import { LEGACY_PROTOCOL_VERSIONS, initializeLegacy } from "./legacy.js";
import { ModernDialect } from "./modern.js";
import { LATEST_MODERN_VERSION, META_SERVER_INFO, MODERN_PROTOCOL_VERSIONS, buildEnvelope, isModernVersion, withTasks } from "./modern-wire.js";
import { cachedVerdict, forgetVerdict, rememberVerdict } from "./verdict-cache.js";
import { isObject } from "../../util/guards.js";

export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

type ProbeOutcome = { kind: "modern"; discover: Result; version: string } | { kind: "retry"; version: string } | { kind: "legacy"; why: string };

export async function negotiateModern(context: NegotiationContext): Promise<Negotiated> {
  const { wire, mode, prior } = context;
  const transport = wire.transport;
  const pinned = mode === "auto" ? undefined : mode;
  // A pin is sent as-is in every request's envelope: it must be a version this client implements, not
  // merely one that sorts after 2026-07-28 ("latest" does, and so does a future date).
  if (pinned !== undefined && !(MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(pinned)) {
    throw new ConfigError(
      `protocol ${JSON.stringify(pinned)} is not a version this client speaks; use "auto", "legacy" or one of ${[...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS].join(", ")}`,
      { field: "protocol" },
    );
  }
  const ours: readonly string[] = pinned !== undefined ? [pinned] : MODERN_PROTOCOL_VERSIONS;

  // HTTP+SSE is a 2025-only transport: a 2026 server cannot be behind it, so there is nothing to probe.
  if (transport.kind === "sse" && pinned === undefined && prior?.kind !== "modern") return legacy(context, false);
  const known = prior ?? (pinned === undefined ? cachedVerdict(transport.identity) : undefined);
  if (known?.kind === "legacy" && pinned === undefined) return legacy(context, false);
  if (known?.kind === "modern") {
    const version = mutualVersion(known.discover, ours);
    if (version !== undefined) return modern(context, known.discover, version);
    if (prior !== undefined) throw noOverlap(known.discover, ours);
    forgetVerdict(transport.identity); // the server changed since: probe again
  }

  // Some 2025 servers exit on a request before `initialize`: survivable until the era is decided.
  let exitedWith: McpError | undefined;
  const exit = new Promise<McpError>((resolve) => {
    transport.setExitHandler?.((error) => {
      exitedWith = error;
      resolve(error);
    });
  });
  let outcome: ProbeOutcome;
  try {
    outcome = await probe(wire, ours[0] ?? LATEST_MODERN_VERSION, context, exit);
    if (outcome.kind === "retry") {
      // -32022 named a version we both speak: one corrective probe, and never `initialize` for it.
      outcome = await probe(wire, outcome.version, context, exit);
      if (outcome.kind === "retry") throw new UnsupportedProtocolVersionError(`server/discover: the server refused ${outcome.version} too, though it listed it`, { requested: outcome.version });
    }
    if (outcome.kind === "legacy" && exitedWith !== undefined) await transport.restart!();
  } finally {
    transport.setExitHandler?.(undefined);
  }
  if (exitedWith !== undefined && outcome.kind !== "legacy") throw exitedWith;
  if (outcome.kind === "modern") {
    const version = mutualVersion(outcome.discover, ours) ?? outcome.version;
    return modern(context, outcome.discover, version);
  }
  if (pinned !== undefined) {
    throw new UnsupportedProtocolVersionError(`Protocol ${pinned} was pinned, but the server does not speak it (${outcome.why}); use protocol "auto" to fall back to the 2025 era`, { requested: pinned });
  }
  return legacy(context, true);
}


async function legacy(context: NegotiationContext, probed: boolean): Promise<Negotiated> {
  const { wire } = context;
  const transport = wire.transport;
  try {
    const negotiated = await initializeLegacy(wire);
    rememberVerdict(transport.identity, { kind: "legacy" });
    return negotiated;
  } catch (error) {
    if (!probed) {
      forgetVerdict(transport.identity);
      // A cached 2025 verdict for a server that has since moved to 2026 only: it refuses `initialize`
      // with -32022 naming a 2026 version. Probe again ("fall forward"), once.
      if (fallsForward(error) && context.mode === "auto") return negotiateModern({ ...context, prior: undefined });
    }
    const status = error instanceof TransportError ? error.status : undefined;
    const fallback = transport.fallbackTransport?.();
    if (fallback !== undefined && (status === 400 || status === 404 || status === 405)) {
      // Neither era over Streamable HTTP: the deprecated HTTP+SSE transport (GET, then `endpoint`).
      try {
        await wire.replaceTransport(fallback);
        const negotiated = await initializeLegacy(wire);
        rememberVerdict(transport.identity, { kind: "legacy" });
        return negotiated;
      } catch (sseError) {
        throw new TransportError(
          `No MCP era answered at ${transport.identity ?? "the server"}: server/discover and initialize over Streamable HTTP failed (HTTP ${status}: ${(error as Error).message}), ` +
            `and the HTTP+SSE fallback failed too (${(sseError as Error).message}). Check the URL.`,
          { cause: sseError, delivered: false, status },
        );
      }
    }
    throw error;
  }
}

function modern(context: NegotiationContext, discover: Result, version: string): Negotiated {
  const { wire } = context;
  const transport = wire.transport;
  transport.setProtocolVersion?.(version);
  transport.enterStatelessEra?.();
  rememberVerdict(transport.identity, { kind: "modern", discover });
  const meta = discover._meta as Record<string, unknown> | undefined;
  const capabilities = discover.capabilities;
  const serverCapabilities = isObject(capabilities) ? capabilities : {};
  return {
    dialect: new ModernDialect(wire, version, {
      http: transport.kind === "streamable-http",
      tasks: context.settings?.tasks === true,
      autoListen: context.settings?.autoListen === false ? undefined : autoListenFilter(serverCapabilities),
      onLegacySign: (error) => {
        if (cachedVerdict(transport.identity)?.kind !== "modern") return;
        forgetVerdict(transport.identity);
        wire.warn(new McpError(`The server answered like a 2025-era server (${error.message}); the next connection to it probes the protocol era again`, { cause: error }));
      },
    }),
    protocolVersion: version,
    serverCapabilities,
    serverInfo: isObject(meta?.[META_SERVER_INFO]) ? (meta[META_SERVER_INFO] as Implementation) : undefined,
    instructions: typeof discover.instructions === "string" ? discover.instructions : undefined,
    discover,
  };
}

async function probe(wire: Wire, version: string, context: NegotiationContext, exit: Promise<McpError>): Promise<ProbeOutcome> {
  const transport = wire.transport;
  const http = transport.kind === "streamable-http";
  const timeoutMs = Math.min(context.settings?.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS, wire.requestTimeoutMs);
  const capabilities = context.settings?.tasks ? withTasks(wire.clientCapabilities) : wire.clientCapabilities;
  const params = { _meta: buildEnvelope(version, capabilities, wire.clientInfo) };
  const send = http ? { headers: { "mcp-protocol-version": version, "mcp-method": "server/discover" }, resumable: false } : undefined;
  const { id, result } = wire.roundTripWithId("server/discover", params, { timeoutMs }, send);
  const answer = await Promise.race([result.then((value) => ({ value }), (error: unknown) => ({ error })), exit.then((error) => ({ exit: error }))]);
  if ("exit" in answer) {
    wire.forget(id, answer.exit);
    return { kind: "legacy", why: "the server process exited on server/discover" };
  }
  if ("value" in answer) return classifyResult(answer.value, version, context);
  return classifyError(answer.error, http);
}

function classifyResult(result: Result, version: string, context: NegotiationContext): ProbeOutcome {
  const versions = result.supportedVersions;
  if (!Array.isArray(versions) || !isObject(result.capabilities)) {
    return { kind: "legacy", why: "server/discover answered with something that is not a DiscoverResult" };
  }
  const ours = context.mode === "auto" ? MODERN_PROTOCOL_VERSIONS : [context.mode];
  if (mutualVersion(result, ours) !== undefined) return { kind: "modern", discover: result, version };
  if (versions.some(isModernVersion)) throw noOverlap(result, ours);
  return { kind: "legacy", why: `the server lists only ${versions.join(", ")}` };
}

function classifyError(error: unknown, http: boolean): ProbeOutcome {
  if (error instanceof ProtocolError) {
    if (error.code === -32022) {
      const supported = supportedVersionsOf(error);
      const mutual = (MODERN_PROTOCOL_VERSIONS as readonly string[]).find((v) => supported.includes(v));
      if (mutual !== undefined) return { kind: "retry", version: mutual };
      if (supported.some(isModernVersion)) {
        throw new UnsupportedProtocolVersionError(`The server speaks ${supported.join(", ")}; this client speaks ${[...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS].join(", ")}: no version in common`, (error.data ?? {}) as { supported?: unknown });
      }
      return { kind: "legacy", why: `-32022 listing only ${supported.join(", ") || "nothing usable"}` };
    }
    // Only -32022 is evidence of the 2026 era; every other code is what a 2025 server says to an
    // unknown method (-32601, -32602, -32600, -32000 "not initialized", ...).
    return { kind: "legacy", why: `server/discover failed with ${error.code}: ${error.message}` };
  }
  if (error instanceof RequestTimeoutError) {
    if (!http) return { kind: "legacy", why: `no answer to server/discover within ${error.timeoutMs} ms` };
    throw new TransportError(`The server did not answer the era probe (server/discover) within ${error.timeoutMs} ms; over HTTP silence is an outage, not a 2025 server`, { cause: error, delivered: true });
  }
  if (error instanceof TransportError && error.status !== undefined) {
    if (error.status === 401 || error.status === 403) throw error; // authorization, not an era question
    if (error.status >= 500) throw error;
    if (error.status >= 400) return { kind: "legacy", why: `HTTP ${error.status} without a 2026-era error body` };
  }
  throw error;
}

function fallsForward(error: unknown): boolean {
  if (!(error instanceof ProtocolError) || error.code !== -32022) return false;
  return supportedVersionsOf(error).some((version) => (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(version));
}

function mutualVersion(discover: Result, ours: readonly string[]): string | undefined {
  const theirs = Array.isArray(discover.supportedVersions) ? (discover.supportedVersions as unknown[]) : [];
  return ours.find((version) => theirs.includes(version));
}

function noOverlap(discover: Result, ours: readonly string[]): UnsupportedProtocolVersionError {
  const theirs = Array.isArray(discover.supportedVersions) ? discover.supportedVersions : [];
  return new UnsupportedProtocolVersionError(`The server speaks ${theirs.join(", ") || "no version it named"}; this client offers ${ours.join(", ")}: no 2026-era version in common`, {
    supported: theirs,
    requested: ours[0],
  });
}
