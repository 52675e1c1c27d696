/**
 * The scan (src/framing/sse-scan.ts) against the general path: the decoder must say exactly what the
 * decoder without it said (sse-reference.ts), callback for callback, for any stream: every kind of line
 * (data with and without a space or colon, event, id with NUL, retry good and bad, comments, unknown
 * fields, a BOM), LF, CRLF and CR line ends mixed, cut at any byte (inside characters too) or pushed as
 * strings, under a small size limit or the default one, with resets in between.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cut } from "../helpers/cut.js";
import { SseDecoder, type SseDecoderOptions } from "../../src/framing/sse.js";
import { ReferenceSseDecoder } from "./sse-reference.js";

const RUNS = { numRuns: 2000 };
const token = fc.string({ unit: fc.constantFrom(..."abeXYZ019-_."), minLength: 1, maxLength: 6 });
const text = fc.string({ unit: fc.constantFrom("a", "é", "中", "👋", " ", ":", "{", '"', "d", "\0"), maxLength: 12 });
const line = fc.oneof(
  { weight: 6, arbitrary: fc.constant("") },
  { weight: 6, arbitrary: text.map((t) => `data: ${t}`) },
  { weight: 2, arbitrary: text.map((t) => `data:${t}`) },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 20, max: 200 }), fc.constantFrom("x", "é", "👋")).map(([n, c]) => `data: ${c.repeat(n)}`) },
  { weight: 1, arbitrary: fc.constantFrom("data", "data:", "event", "id", "retry") },
  { weight: 3, arbitrary: token.map((t) => `event: ${t}`) },
  { weight: 1, arbitrary: fc.constantFrom("event:", "event: message") },
  { weight: 3, arbitrary: token.map((t) => `id: ${t}`) },
  { weight: 1, arbitrary: fc.constantFrom("id:", "id: a\0b", "id:x") },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.nat({ max: 5000 }).map((n) => `retry: ${n}`),
      fc.constant("retry: soon"),
    ),
  },
  { weight: 2, arbitrary: text.map((t) => `:${t}`) },
  { weight: 1, arbitrary: text.map((t) => `: ${t}`) },
  { weight: 1, arbitrary: fc.tuple(token, text).map(([f, t]) => `${f}: ${t}`) },
  { weight: 1, arbitrary: fc.constantFrom("ï»¿data: bom", "\uFEFFdata: bom") },
);
const eol = fc.constantFrom("\n", "\r\n", "\r");
/** Most streams LF only (what servers send, and what the scan reads); the others mix in CRLF and CR. */
const stream = fc.oneof(
  { weight: 3, arbitrary: fc.array(line, { maxLength: 40 }).map((lines) => lines.map((l) => `${l}\n`).join("")) },
  { weight: 1, arbitrary: fc.array(fc.tuple(line, eol), { maxLength: 40 }).map((lines) => lines.map(([l, e]) => l + e).join("")) },
);

type Piece = { bytes: Buffer } | { string: string } | { reset: true };

/** Everything a decoder said, in order. */
function record(make: (options: SseDecoderOptions) => SseDecoder | ReferenceSseDecoder, limit: number | undefined, pieces: Piece[]): unknown[] {
  const said: unknown[] = [];
  const decoder = make({
    onEvent: (e) => said.push(["event", e.id, e.event, e.data]),
    onRetry: (ms) => said.push(["retry", ms]),
    onComment: (c) => said.push(["comment", c]),
    onError: (e) => said.push(["error", e.name, e.message]),
    ...(limit === undefined ? {} : { maxMessageBytes: limit }),
  });
  for (const piece of pieces) {
    if ("reset" in piece) decoder.reset();
    else decoder.push("bytes" in piece ? piece.bytes : piece.string);
    said.push(["skipping", decoder.skippingEvent]);
  }
  return said;
}

describe("SSE scan (property): the decoder says what the general path says", () => {
  it("any lines, any line ends, cut at any byte, under any limit", () => {
    fc.assert(
      fc.property(
        fc.array(stream, { minLength: 1, maxLength: 3 }),
        fc.array(fc.nat(), { maxLength: 25 }),
        fc.constantFrom(undefined, 48, 128, 400),
        (streams, offsets, limit) => {
          // Streams in a row with a reset between them (a replaced stream), each cut at the same offsets.
          const pieces: Piece[] = [];
          streams.forEach((wire, i) => {
            if (i > 0) pieces.push({ reset: true });
            for (const bytes of cut(Buffer.from(wire, "utf8"), offsets)) pieces.push({ bytes });
          });
          expect(record((o) => new SseDecoder(o), limit, pieces)).toEqual(record((o) => new ReferenceSseDecoder(o), limit, pieces));
        },
      ),
      RUNS,
    );
  });

  it("pushed as strings, cut anywhere", () => {
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 25 }), fc.constantFrom(undefined, 64), (wire, offsets, limit) => {
        const points = [...new Set(offsets.map((o) => o % (wire.length + 1)))].sort((a, b) => a - b);
        const pieces: Piece[] = [];
        let start = 0;
        for (const point of [...points, wire.length]) {
          pieces.push({ string: wire.slice(start, point) });
          start = point;
        }
        expect(record((o) => new SseDecoder(o), limit, pieces)).toEqual(record((o) => new ReferenceSseDecoder(o), limit, pieces));
      }),
      RUNS,
    );
  });

  it("the MCP shape, one whole event per chunk, decodes without the general parser", () => {
    const decoder = new SseDecoder({ onEvent: () => {} });
    decoder.push(Buffer.from('event: message\nid: 7\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'));
    decoder.push(Buffer.from(": keep-alive\n\n"));
    expect((decoder as unknown as { parser: unknown }).parser).toBeUndefined();
    decoder.push(Buffer.from("retry: 100\n\n"));
    expect((decoder as unknown as { parser: unknown }).parser).toBeDefined();
  });
});
