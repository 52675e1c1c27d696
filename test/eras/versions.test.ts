/**
 * The one versions module: which versions this client speaks and in which era, what it and a server
 * both speak, and what a -32022 error says the server speaks.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as entry from "../../src/index.js";
import {
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSIONS,
  SUPPORTED_PROTOCOL_VERSIONS,
  isModern,
  mutualVersion,
  speaks,
  supportedVersionsOf,
} from "../../src/connection/eras/versions.js";
import { ProtocolError, UnsupportedProtocolVersionError } from "../../src/index.js";

describe("protocol versions", () => {
  it("lists every version newest first; the package exports the same lists", () => {
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]);
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual([...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS]);
    expect([...SUPPORTED_PROTOCOL_VERSIONS].sort().reverse()).toEqual([...SUPPORTED_PROTOCOL_VERSIONS]);
    expect(entry.SUPPORTED_PROTOCOL_VERSIONS).toBe(SUPPORTED_PROTOCOL_VERSIONS);
    expect(entry.LEGACY_PROTOCOL_VERSIONS).toBe(LEGACY_PROTOCOL_VERSIONS);
    expect(entry.MODERN_PROTOCOL_VERSIONS).toBe(MODERN_PROTOCOL_VERSIONS);
  });

  it("speaks: every listed version, in its own era only; nothing else", () => {
    for (const version of LEGACY_PROTOCOL_VERSIONS) {
      expect([speaks(version), speaks(version, "legacy"), speaks(version, "modern")]).toEqual([true, true, false]);
    }
    for (const version of MODERN_PROTOCOL_VERSIONS) {
      expect([speaks(version), speaks(version, "legacy"), speaks(version, "modern")]).toEqual([true, false, true]);
    }
    for (const other of ["2027-01-01", "latest", "", "2026-07-28 ", undefined, 20260728, null]) expect(speaks(other)).toBe(false);
  });

  it("isModern: any date-shaped version from 2026-07-28 on, spoken or not", () => {
    expect(["2026-07-28", "2026-12-01", "2099-01-01"].every(isModern)).toBe(true);
    expect(["2025-11-25", "latest", "next", "2026-07-28x", "", 2026].some(isModern)).toBe(false);
  });

  it("mutualVersion: the first of ours that theirs lists, in our order; nothing for a list that is not an array", () => {
    expect(mutualVersion(["2025-06-18", "2026-07-28"])).toBe("2026-07-28");
    expect(mutualVersion(["2025-06-18", "2025-11-25"], LEGACY_PROTOCOL_VERSIONS)).toBe("2025-11-25");
    expect(mutualVersion(["2099-01-01"])).toBeUndefined();
    for (const odd of [undefined, null, "2026-07-28", { 0: "2026-07-28" }]) expect(mutualVersion(odd)).toBeUndefined();
  });

  it("mutualVersion (property): the answer is in both lists, and no earlier version of ours is in theirs", () => {
    const version = fc.constantFrom<string>(...SUPPORTED_PROTOCOL_VERSIONS, "2027-01-01", "latest", "");
    fc.assert(
      fc.property(fc.array(fc.oneof(version, fc.anything())), fc.uniqueArray(version), (theirs, ours) => {
        const mutual = mutualVersion(theirs, ours);
        if (mutual === undefined) {
          expect(ours.some((v) => theirs.includes(v))).toBe(false);
          return;
        }
        expect(theirs).toContain(mutual);
        expect(ours.slice(0, ours.indexOf(mutual)).some((v) => theirs.includes(v))).toBe(false);
      }),
    );
  });

  it("supportedVersionsOf: the string versions of a -32022 error's data.supported; undefined for any other error", () => {
    const refused = (data: unknown) => new ProtocolError("Unsupported protocol version", -32022, data);
    expect(supportedVersionsOf(refused({ supported: ["2026-07-28", 7, null, "2025-11-25"] }))).toEqual(["2026-07-28", "2025-11-25"]);
    expect(supportedVersionsOf(refused({ supported: "2026-07-28" }))).toEqual([]);
    expect(supportedVersionsOf(refused(undefined))).toEqual([]);
    expect(supportedVersionsOf(new UnsupportedProtocolVersionError("no", { supported: ["2026-07-28"] }))).toEqual(["2026-07-28"]);
    expect(supportedVersionsOf(new ProtocolError("Method not found", -32601, { supported: ["2026-07-28"] }))).toBeUndefined();
    expect(supportedVersionsOf(new Error("-32022"))).toBeUndefined();
    expect(supportedVersionsOf({ code: -32022, data: { supported: ["2026-07-28"] } })).toBeUndefined();
  });
});
