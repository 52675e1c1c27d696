/**
 * Picks the protocol era in the connection's `initializing` phase. The 2026-07-28 era registers itself
 * here (see `registerModernNegotiator`), so this file is the only place that knows both exist.
 */
import { ConfigError } from "../../jsonrpc/errors.js";
import type { Negotiated, NegotiationContext, Negotiator } from "./dialect.js";
import { LEGACY_PROTOCOL_VERSIONS, initializeLegacy } from "./legacy.js";

let modernNegotiator: Negotiator | undefined;

/** Installed by the 2026-era module: handles `auto` and pinned modern versions. */
export function registerModernNegotiator(negotiator: Negotiator): void {
  modernNegotiator = negotiator;
}

export async function negotiate(context: NegotiationContext): Promise<Negotiated> {
  const { mode, prior } = context;
  // A prior 2025 verdict skips the probe in "auto" mode only: a pinned version is the caller's word.
  if (mode === "legacy" || (mode === "auto" && prior?.kind === "legacy")) return initializeLegacy(context.wire);
  if ((LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(mode)) {
    return initializeLegacy(context.wire, { offer: mode });
  }
  if (modernNegotiator) return modernNegotiator(context);
  if (mode === "auto") return initializeLegacy(context.wire);
  throw new ConfigError(
    `protocol ${JSON.stringify(mode)} is not supported; use "auto", "legacy" or one of ${LEGACY_PROTOCOL_VERSIONS.join(", ")}`,
    { field: "protocol" },
  );
}
