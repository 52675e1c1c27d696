/**
 * Property tests for the stdio codec: whatever the chunking, the same messages come out in the same
 * order; garbage costs exactly one error per bad line; an oversize frame is skipped and the next decodes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cut } from "../helpers/cut.js";
import { FramingError } from "../../src/framing/errors.js";
import { NdjsonDecoder, encodeNdjson } from "../../src/framing/ndjson.js";

const RUNS = { numRuns: 1000 };

const id = fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), fc.string({ unit: "grapheme", maxLength: 12 }));
// Strings mixing ASCII, multi-byte and astral characters (emoji), plus newlines and quotes that must be escaped.
const text = fc.string({
  unit: fc.oneof(fc.constantFrom("a", "é", "ß", "中", "👋", "\n", "\r", '"', "\\", "\u2028"), fc.string({ unit: "binary", minLength: 1, maxLength: 1 })),
  maxLength: 40,
});
const params = fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 })), {
  maxKeys: 4,
});
const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant("2.0"), id, method: text, params }),
  fc.record({ jsonrpc: fc.constant("2.0"), method: text, params }),
  fc.record({ jsonrpc: fc.constant("2.0"), id, result: params }),
  fc.record({ jsonrpc: fc.constant("2.0"), id, error: fc.record({ code: fc.integer({ min: -32768, max: -32000 }), message: text }) }),
);

function decodeAll(chunks: Buffer[], maxFrameBytes?: number): { values: unknown[]; errors: FramingError[] } {
  const values: unknown[] = [];
  const errors: FramingError[] = [];
  const decoder = new NdjsonDecoder({ maxFrameBytes, onValue: (v) => values.push(v), onError: (e) => errors.push(e) });
  for (const chunk of chunks) decoder.push(chunk);
  return { values, errors };
}

describe("NDJSON codec (property)", () => {
  it("any message sequence, cut into any chunks, decodes to the same sequence", () => {
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.constantFrom("\n", "\r\n"),
        fc.boolean(),
        (messages, offsets, eol, blankLines) => {
          const wire = messages.map((m) => encodeNdjson(m).replace(/\n$/, eol) + (blankLines ? eol : "")).join("");
          const { values, errors } = decodeAll(cut(Buffer.from(wire, "utf8"), offsets));
          expect(errors).toEqual([]);
          expect(values).toEqual(messages);
        },
      ),
      RUNS,
    );
  });

  it("garbage lines interleaved give one error each, and no good frame is lost or reordered", () => {
    const garbage = fc.oneof(
      fc.constantFrom("{", "not json", "{'single': 'quotes'}", "[1,2", '{"a":1}}', "\u0000\u0001"),
      fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !s.includes("\n") && s.trim() !== "" && !isJson(s)),
    );
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            message.map((m) => ({ good: m })),
            garbage.map((g) => ({ bad: g })),
          ),
          { maxLength: 20 },
        ),
        fc.array(fc.nat(), { maxLength: 30 }),
        (items, offsets) => {
          const wire = items.map((item) => ("good" in item ? encodeNdjson(item.good) : `${item.bad}\n`)).join("");
          const { values, errors } = decodeAll(cut(Buffer.from(wire, "utf8"), offsets));
          expect(values).toEqual(items.filter((i) => "good" in i).map((i) => (i as { good: unknown }).good));
          expect(errors).toHaveLength(items.filter((i) => "bad" in i).length);
          for (const error of errors) expect(error.message).toMatch(/Invalid JSON line/);
        },
      ),
      RUNS,
    );
  });

  it("an oversize frame is rejected with an error naming the limit, and the next frame decodes", () => {
    const limit = 256;
    fc.assert(
      fc.property(message, fc.integer({ min: limit + 1, max: 4 * limit }), message, fc.array(fc.nat(), { maxLength: 20 }), (before, size, after, offsets) => {
        const big = JSON.stringify({ jsonrpc: "2.0", method: "x", params: { blob: "y".repeat(size) } });
        const first = encodeNdjson(before);
        const last = encodeNdjson(after);
        fc.pre(Buffer.byteLength(first) <= limit && Buffer.byteLength(last) <= limit);
        const { values, errors } = decodeAll(cut(Buffer.from(first + big + "\n" + last, "utf8"), offsets), limit);
        expect(values).toEqual([before, after]);
        expect(errors).toHaveLength(1);
        expect(errors[0].message).toMatch(/exceeds the limit of 256 bytes/);
      }),
      RUNS,
    );
  });
});

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
