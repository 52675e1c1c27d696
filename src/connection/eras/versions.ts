/**
 * The protocol versions this client speaks, and every question asked of them: do we speak it (in which
 * era), is it a 2026-era version at all, which version do we and the server both speak, and which
 * versions a -32022 error says the server speaks. Adding a version is one line here.
 */
import { ErrorCode } from "../../jsonrpc/codes.js";
import { ProtocolError } from "../../jsonrpc/errors.js";
import { isObject } from "../../util/guards.js";
import type { Era } from "./dialect.js";

/** The 2025 session era, newest first: `initialize` offers the first. */
export const LEGACY_PROTOCOL_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
/** The 2026 stateless era, newest first: the era probe offers the first. */
export const MODERN_PROTOCOL_VERSIONS = ["2026-07-28"] as const;
/** Every version this client speaks, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS] as const;

/** Where the stateless era begins. */
export const FIRST_MODERN_VERSION = "2026-07-28";
const VERSION_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether this client speaks `version`; with `era`, whether it speaks it in that era. */
export function speaks(version: unknown, era?: Era): version is string {
  // The era lists, read at each call: the one truth the combined list is made from.
  if (era !== "legacy" && MODERN_PROTOCOL_VERSIONS.some((known) => known === version)) return true;
  return era !== "modern" && LEGACY_PROTOCOL_VERSIONS.some((known) => known === version);
}

/**
 * Whether `version` belongs to the stateless era, whether or not this client speaks it: ISO dates
 * compare as strings, and every version from 2026-07-28 on is of that era. Only for strings shaped like
 * a version: "latest" or "next" also sort after "2026-07-28".
 */
export function isModern(version: unknown): version is string {
  return typeof version === "string" && VERSION_SHAPE.test(version) && version >= FIRST_MODERN_VERSION;
}

/**
 * The first of `ours` (in our order of preference) that `theirs` lists, or undefined. `theirs` is what
 * the server sent (a DiscoverResult's `supportedVersions`, a -32022 error's `data.supported`), unchecked.
 */
export function mutualVersion(theirs: unknown, ours: readonly string[] = MODERN_PROTOCOL_VERSIONS): string | undefined {
  if (!Array.isArray(theirs)) return undefined;
  return ours.find((version) => theirs.includes(version));
}

/**
 * The versions a -32022 (UnsupportedProtocolVersion) error says the server speaks: its `data.supported`,
 * strings only ([] when it names none). Undefined when `error` is not a -32022 error.
 */
export function supportedVersionsOf(error: unknown): string[] | undefined {
  if (!(error instanceof ProtocolError) || error.code !== ErrorCode.UnsupportedProtocolVersion) return undefined;
  const supported = isObject(error.data) ? error.data.supported : undefined;
  return Array.isArray(supported) ? supported.filter((version): version is string => typeof version === "string") : [];
}
