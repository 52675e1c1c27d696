/**
 * Picks the protocol era in the connection's `initializing` phase: the only place that knows both eras
 * exist. The whole decision is one loop. The first step comes from what is known before any round trip
 * (the mode, a prior verdict, the verdict cache, the transport); then each step runs and its outcome
 * names the next one or ends the negotiation:
 *
 *   probe (probe.ts: server/discover, classified) -> modern | corrective probe | initialize | failure
 *   initialize (legacy.ts: the 2025 handshake)    -> ready  | probe (a cached verdict gone stale) | HTTP+SSE | failure
 *   HTTP+SSE (the deprecated transport)           -> ready  | failure
 *
 * docs/guide/transports-and-eras.md "Protocol eras" gives the same rules from the user's side.
 */
import { ErrorCode } from "../../jsonrpc/codes.js";
import { ConfigError, McpError, ProtocolError, TransportError } from "../../jsonrpc/errors.js";
import type { Transport } from "../../transports/transport.js";
import { asError, isObject } from "../../util/guards.js";
import { autoListenFilter } from "./auto-listen.js";
import type { EraRules, Implementation, Negotiated, NegotiationContext, Result, Wire } from "./dialect.js";
import { UnsupportedProtocolVersionError, noMutualVersion } from "./era-errors.js";
import { LegacyRules, initializeLegacy } from "./legacy.js";
import { placeOf } from "./probe.js";
import { ModernDialect } from "./modern.js";
import { META_SERVER_INFO } from "./modern-wire.js";
import { probe } from "./probe.js";
import { cachedVerdict, forgetVerdict, rememberVerdict } from "./verdict-cache.js";
import { MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS, mutualVersion, speaks, supportedVersionsOf } from "./versions.js";

/**
 * Why the 2025 era is tried, which decides what a failed `initialize` leads to:
 * - `chosen`: the caller's word (protocol "legacy", a 2025 pin, a prior 2025 verdict): its error is the answer;
 * - `transport`: HTTP+SSE carries nothing else: its error is the answer, and a cached verdict is dropped;
 * - `cached`: a cached 2025 verdict: dropped; a -32022 naming a 2026 version we speak means the server
 *   moved on (probe); 400/404/405 means HTTP+SSE;
 * - `probed`: the probe said 2025: 400/404/405 means HTTP+SSE.
 */
type LegacyWhy = "chosen" | "transport" | "cached" | "probed";

type Step =
  | { kind: "probe"; version: string; corrective: boolean }
  | { kind: "initialize"; offer?: string; why: LegacyWhy }
  | { kind: "http+sse"; fallback: Transport; refused: unknown; status: number }
  | { kind: "done"; negotiated: Negotiated };

export async function negotiate(context: NegotiationContext): Promise<Negotiated> {
  const negotiation = new Negotiation(context);
  try {
    // Steps only move forward (a cached verdict's initialize, probe, corrective probe, initialize,
    // HTTP+SSE), and each kind runs at most once, so the loop ends.
    let step = negotiation.first();
    while (step.kind !== "done") step = await negotiation.run(step);
    return step.negotiated;
  } finally {
    negotiation.stopWatchingExit();
  }
}

/**
 * How the connection treats server traffic before the era is decided: as the 2025 era does. Only a
 * 2025 server sends anything unasked before the handshake ends (logs, pings); a 2026 server sends
 * nothing it was not asked for.
 */
export function rulesWhileNegotiating(wire: Wire): EraRules {
  return new LegacyRules(wire);
}

class Negotiation {
  private readonly wire: Wire;
  /** The server, for the verdict cache: the transport's identity before any HTTP+SSE fallback. */
  private readonly identity: string | undefined;
  /** A pinned 2026-era version; undefined in "auto" mode. */
  private readonly pinned: string | undefined;
  /** The 2026-era versions we offer, preferred first. */
  /** Newest first; never empty, so the first is the one to probe with. */
  private readonly ours: readonly [string, ...string[]];
  private exitWatch: ExitWatch | undefined;
  /** The deadline of each handshake request: the caller's start budget, not the calls' timeout. */
  private readonly handshakeMs: number;

  constructor(private readonly context: NegotiationContext) {
    this.wire = context.wire;
    this.identity = context.wire.transport.identity;
    this.handshakeMs = context.settings?.handshakeTimeoutMs ?? context.wire.requestTimeoutMs;
    this.pinned = context.mode === "auto" || context.mode === "legacy" ? undefined : context.mode;
    this.ours = this.pinned !== undefined ? [this.pinned] : MODERN_PROTOCOL_VERSIONS;
  }

  first(): Step {
    const { mode, prior } = this.context;
    const pinned = this.pinned;
    // A prior 2025 verdict skips the probe in "auto" mode only: a pinned version is the caller's word.
    if (mode === "legacy" || (mode === "auto" && prior?.kind === "legacy")) return { kind: "initialize", why: "chosen" };
    if (speaks(pinned, "legacy")) return { kind: "initialize", offer: pinned, why: "chosen" };
    // A pin is sent as-is in every request's envelope: it must be a version this client implements, not
    // merely one that sorts after 2026-07-28 ("latest" does, and so does a future date).
    if (pinned !== undefined && !speaks(pinned, "modern")) {
      throw new ConfigError(
        `protocol ${JSON.stringify(pinned)} is not a version this client speaks; use "auto", "legacy" or one of ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
        {
          field: "protocol",
        },
      );
    }
    // HTTP+SSE is a 2025-only transport: a 2026 server cannot be behind it, so there is nothing to probe.
    if (this.wire.transport.kind === "sse" && pinned === undefined && prior?.kind !== "modern") return { kind: "initialize", why: "transport" };
    const known = prior ?? (pinned === undefined ? cachedVerdict(this.identity) : undefined);
    if (known?.kind === "legacy" && pinned === undefined) return { kind: "initialize", why: "cached" };
    if (known?.kind === "modern") {
      const version = mutualVersion(known.discover.supportedVersions, this.ours);
      if (version !== undefined) return this.adopt(known.discover, version);
      if (prior !== undefined) throw noMutualVersion(known.discover, this.ours);
      forgetVerdict(this.identity); // the server changed since: probe again
    }
    return { kind: "probe", version: this.ours[0], corrective: false };
  }

  run(step: Exclude<Step, { kind: "done" }>): Promise<Step> {
    switch (step.kind) {
      case "probe":
        return this.probe(step.version, step.corrective);
      case "initialize":
        return this.initialize(step.offer, step.why);
      case "http+sse":
        return this.overHttpSse(step.fallback, step.refused, step.status);
    }
  }

  private async probe(version: string, corrective: boolean): Promise<Step> {
    const watch = (this.exitWatch ??= new ExitWatch(this.wire.transport));
    const outcome = await probe({ wire: this.wire, version, ours: this.ours, settings: this.context.settings, exit: watch.exit });
    switch (outcome.kind) {
      case "fail":
        throw outcome.error;
      case "retry":
        // -32022 named a version we both speak: one corrective probe, and never `initialize` for it.
        if (corrective)
          throw new UnsupportedProtocolVersionError(`server/discover: the server refused ${outcome.version} too, though it listed it`, {
            requested: outcome.version,
          });
        return { kind: "probe", version: outcome.version, corrective: true };
      case "modern":
        if (watch.exited !== undefined) throw watch.exited;
        return this.adopt(outcome.discover, mutualVersion(outcome.discover.supportedVersions, this.ours) ?? version);
      case "legacy":
        if (watch.exited !== undefined) await this.wire.transport.restart!();
        this.stopWatchingExit();
        if (this.pinned !== undefined) {
          throw new UnsupportedProtocolVersionError(
            `Protocol ${this.pinned} was pinned, but the server does not speak it (${outcome.why}); use protocol "auto" to fall back to the 2025 era`,
            {
              requested: this.pinned,
            },
          );
        }
        return { kind: "initialize", why: "probed" };
    }
  }

  private async initialize(offer: string | undefined, why: LegacyWhy): Promise<Step> {
    try {
      const negotiated = await initializeLegacy(this.wire, offer, this.handshakeMs);
      if (why !== "chosen") rememberVerdict(this.identity, { kind: "legacy" });
      return { kind: "done", negotiated };
    } catch (error) {
      if (why === "chosen") throw error;
      if (why !== "probed") forgetVerdict(this.identity);
      // A cached 2025 verdict for a server that has since moved to 2026 only: it refuses `initialize`
      // with -32022 naming a 2026 version, or, knowing no such method, with -32601. Probe again ("fall forward").
      if (
        why === "cached" &&
        (mutualVersion(supportedVersionsOf(error)) !== undefined || (error instanceof ProtocolError && error.code === ErrorCode.MethodNotFound))
      )
        return { kind: "probe", version: this.ours[0], corrective: false };
      const status = error instanceof TransportError ? error.status : undefined;
      if (status === 400 || status === 404 || status === 405) {
        // Neither era over Streamable HTTP: the deprecated HTTP+SSE transport (GET, then `endpoint`).
        const fallback = this.wire.transport.fallbackTransport?.();
        if (fallback !== undefined) return { kind: "http+sse", fallback, refused: error, status };
      }
      throw error;
    }
  }

  private async overHttpSse(fallback: Transport, refused: unknown, status: number): Promise<Step> {
    try {
      await this.wire.replaceTransport(fallback);
      const negotiated = await initializeLegacy(this.wire, undefined, this.handshakeMs);
      rememberVerdict(this.identity, { kind: "legacy" });
      return { kind: "done", negotiated };
    } catch (error) {
      throw new TransportError(
        `No MCP era answered at ${placeOf(this.identity)}: server/discover and initialize over Streamable HTTP failed (HTTP ${status}: ${asError(refused).message}), ` +
          `and the HTTP+SSE fallback failed too (${asError(error).message}). Check the URL.`,
        { cause: error, delivered: false, status },
      );
    }
  }

  /** The 2026 era at `version`, with the server's facts from its DiscoverResult. */
  private adopt(discover: Result, version: string): Step {
    const { wire, identity } = this;
    const transport = wire.transport;
    transport.setProtocolVersion?.(version);
    transport.enterStatelessEra?.();
    rememberVerdict(identity, { kind: "modern", discover });
    const meta = isObject(discover._meta) ? discover._meta : undefined;
    const serverCapabilities = isObject(discover.capabilities) ? discover.capabilities : {};
    const dialect = new ModernDialect(wire, version, {
      http: transport.kind === "streamable-http",
      tasks: this.context.settings?.tasks === true,
      autoListen: this.context.settings?.autoListen === false ? undefined : autoListenFilter(serverCapabilities),
      onLegacySign: (error) => {
        if (cachedVerdict(identity)?.kind !== "modern") return;
        forgetVerdict(identity);
        wire.emit(
          "error",
          new McpError(`The server answered like a 2025-era server (${error.message}); the next connection to it probes the protocol era again`, {
            cause: error,
          }),
        );
      },
    });
    const negotiated: Negotiated = {
      dialect,
      protocolVersion: version,
      serverCapabilities,
      serverInfo: isObject(meta?.[META_SERVER_INFO]) ? (meta[META_SERVER_INFO] as Implementation) : undefined,
      instructions: typeof discover.instructions === "string" ? discover.instructions : undefined,
      discover,
    };
    return { kind: "done", negotiated };
  }

  stopWatchingExit(): void {
    this.exitWatch?.stop();
    this.exitWatch = undefined;
  }
}

/**
 * stdio: some 2025 servers exit on a request that comes before `initialize`. While the probe runs, an
 * exit is an answer (a 2025 server, to be respawned), not the end of the connection.
 */
class ExitWatch {
  exited: McpError | undefined;
  readonly exit: Promise<McpError>;

  constructor(private readonly transport: Transport) {
    this.exit = new Promise<McpError>((resolve) => {
      transport.setExitHandler?.((error) => {
        this.exited = error;
        resolve(error);
      });
    });
  }

  stop(): void {
    this.transport.setExitHandler?.(undefined);
  }
}
