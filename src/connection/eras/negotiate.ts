/**
 * Picks the protocol era in the connection's `initializing` phase: the only place that knows both
 * eras exist. "legacy", a 2025 version, or a prior 2025 verdict in "auto" mode go straight to
 * `initialize`; everything else ("auto", a 2026 version) is the 2026-era negotiator's, which probes and
 * falls back to `initialize` itself.
 */
import type { Negotiated, NegotiationContext } from "./dialect.js";
import { LEGACY_PROTOCOL_VERSIONS, initializeLegacy } from "./legacy.js";
import { negotiateModern } from "./modern-negotiate.js";

export async function negotiate(context: NegotiationContext): Promise<Negotiated> {
  const { mode, prior } = context;
  // A prior 2025 verdict skips the probe in "auto" mode only: a pinned version is the caller's word.
  if (mode === "legacy" || (mode === "auto" && prior?.kind === "legacy")) return initializeLegacy(context.wire);
  if ((LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(mode)) {
    return initializeLegacy(context.wire, { offer: mode });
  }
  return negotiateModern(context);
}
