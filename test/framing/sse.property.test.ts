/**
 * Property tests for the SSE codec: events with ids, names, retry and multi-line data, with comments in
 * between, LF or CRLF, cut at any byte, decode to the same events; bad JSON in one event is reported and
 * the next event still decodes.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cut } from "../helpers/cut.js";
import { SseDecoder, encodeSseEvent, parseEventData, type SseEvent } from "../../src/framing/sse.js";
import { OversizeFrameError } from "../../src/framing/oversize.js";

const RUNS = { numRuns: 1000 };
const token = fc.string({ unit: fc.constantFrom(..."abcdefXYZ0123456789-_."), minLength: 1, maxLength: 10 });
const dataLine = fc
  .string({
    unit: fc.oneof(fc.constantFrom("a", "é", "中", "👋", " ", ":", "{", "}", '"'), fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 })),
    maxLength: 30,
  })
  .map((s) => s.replace(/[\r\n]/g, ""));
const event = fc.record(
  {
    id: token,
    event: token,
    data: fc.array(dataLine, { minLength: 1, maxLength: 4 }).map((lines) => lines.join("\n")),
    retry: fc.nat({ max: 100_000 }),
    comment: dataLine,
  },
  { requiredKeys: ["data"] },
);

describe("SSE codec (property)", () => {
  it("events with ids, names, retry, multi-line data and comments, cut anywhere, decode to the same events", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 30 }), fc.boolean(), (events, offsets, crlf) => {
        let wire = "";
        for (const e of events) {
          if (e.comment !== undefined) wire += `:${e.comment}\n`;
          wire += encodeSseEvent({ id: e.id, event: e.event, data: e.data, retry: e.retry });
        }
        if (crlf) wire = wire.replace(/\n/g, "\r\n");
        const decoded: SseEvent[] = [];
        const retries: number[] = [];
        const decoder = new SseDecoder({ onEvent: (ev) => decoded.push(ev), onRetry: (ms) => retries.push(ms) });
        for (const chunk of cut(Buffer.from(wire, "utf8"), offsets)) decoder.push(chunk);
        expect(decoded.map((d) => ({ id: d.id, event: d.event, data: d.data }))).toEqual(events.map((e) => ({ id: e.id, event: e.event, data: e.data })));
        expect(retries).toEqual(events.filter((e) => e.retry !== undefined).map((e) => e.retry));
      }),
      RUNS,
    );
  });

  it("an event whose data is not JSON is reported, and the next event decodes", () => {
    const message = fc.record({ jsonrpc: fc.constant("2.0" as const), method: token, params: fc.dictionary(token, dataLine, { maxKeys: 3 }) });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            message.map((m) => ({ good: m })),
            dataLine.filter((d) => !isJson(d)).map((d) => ({ bad: d })),
          ),
          { maxLength: 10 },
        ),
        fc.array(fc.nat(), { maxLength: 20 }),
        (items, offsets) => {
          const wire = items.map((item, i) => encodeSseEvent({ id: String(i), data: "good" in item ? JSON.stringify(item.good) : item.bad })).join("");
          const good: unknown[] = [];
          let bad = 0;
          const decoder = new SseDecoder({
            onEvent: (ev) => {
              const parsed = parseEventData(ev);
              if (parsed.ok) good.push(parsed.value);
              else {
                bad++;
                expect(parsed.error.message).toMatch(new RegExp(`SSE event ${ev.id} does not hold JSON`));
              }
            },
          });
          for (const chunk of cut(Buffer.from(wire, "utf8"), offsets)) decoder.push(chunk);
          expect(good).toEqual(items.filter((i) => "good" in i).map((i) => (i as { good: unknown }).good));
          expect(bad).toBe(items.filter((i) => "bad" in i).length);
        },
      ),
      RUNS,
    );
  });
});

describe("SSE codec: the size limit (property)", () => {
  const LIMIT = 256;
  it("oversize events (one long line or many lines) are skipped with one error each; every other event decodes, whatever the line ends and cuts", () => {
    const small = fc.record({
      id: token,
      data: fc
        .array(
          dataLine.filter((d) => d.length < 40),
          { minLength: 1, maxLength: 3 },
        )
        .map((l) => l.join("\n")),
    });
    const big = fc.record({
      id: token,
      lines: fc.integer({ min: 1, max: 8 }),
      size: fc.integer({ min: LIMIT + 1, max: 6 * LIMIT }),
      fill: fc.constantFrom("x", "é", "中", "👋"),
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            small.map((e) => ({ small: e })),
            big.map((e) => ({ big: e })),
          ),
          { maxLength: 10 },
        ),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.constantFrom("\n", "\r\n", "\r"),
        (items, offsets, eol) => {
          let wire = "";
          for (const item of items) {
            if ("small" in item) wire += encodeSseEvent(item.small);
            else {
              const { id, lines, size, fill } = item.big;
              const line = fill.repeat(Math.ceil(size / lines / Buffer.byteLength(fill)));
              wire += encodeSseEvent({ id, data: Array.from({ length: lines }, () => line).join("\n") });
            }
          }
          // A CR at the very end could still be the start of a CRLF: a final LF settles it.
          wire = `${wire.replace(/\n/g, eol)}\n`;
          const decoded: SseEvent[] = [];
          const errors: Error[] = [];
          const decoder = new SseDecoder({ maxMessageBytes: LIMIT, onEvent: (ev) => decoded.push(ev), onError: (e) => errors.push(e) });
          for (const chunk of cut(Buffer.from(wire, "utf8"), offsets)) decoder.push(chunk);
          expect(decoded.map((d) => ({ id: d.id, data: d.data }))).toEqual(items.filter((i) => "small" in i).map((i) => (i as { small: SseEvent }).small));
          expect(errors).toHaveLength(items.filter((i) => "big" in i).length);
          for (const error of errors) expect(error).toBeInstanceOf(OversizeFrameError);
        },
      ),
      RUNS,
    );
  });

  it("never holds much more than the limit, however long an event goes on", () => {
    const decoder = new SseDecoder({ maxMessageBytes: 1024, onEvent: () => {}, onError: () => {} });
    decoder.push("id: 1\ndata: ");
    for (let i = 0; i < 2000; i++) decoder.push("y".repeat(1000));
    expect(decoder.skippingEvent).toBe(true);
    const events: SseEvent[] = [];
    const after = new SseDecoder({ maxMessageBytes: 1024, onEvent: (e) => events.push(e) });
    after.push(`data: ${"z".repeat(5000)}\n\ndata: ok\n\n`);
    expect(events.map((e) => e.data)).toEqual(["ok"]);
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
