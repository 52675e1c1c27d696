/**
 * Property tests for reading the request id of a message too large to keep (framing/oversize.ts): from
 * its first and last 512 characters, a response's id is found where serialisers put it (first keys or
 * last key), never a wrong one, and never for a server request or notification (their ids belong to the
 * server, and failing a client request because of one would be wrong). And the stdio decoder names the
 * request a skipped line answered.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonRpcId } from "../../src/jsonrpc/messages.js";
import { NdjsonDecoder } from "../../src/framing/ndjson.js";
import { SNIFF_CHARS, responseIdOf } from "../../src/framing/oversize.js";

const RUNS = { numRuns: 1000 };
const id = fc.oneof(fc.integer({ min: -1000, max: 2 ** 31 }), fc.string({ maxLength: 12 }));
const json = fc.jsonValue({ maxDepth: 3 });
/** Values that put decoy "id" keys everywhere inside. */
const decoy = fc.oneof(json, fc.record({ id, inner: json }), fc.array(fc.record({ id }), { maxLength: 3 }));
const blob = fc.string({ minLength: 0, maxLength: 3000 });

function keysInOrder(entries: [string, unknown][], order: number[]): string {
  const sorted = order.map((i) => entries[i % entries.length]).filter((e, i, all) => all.indexOf(e) === i);
  for (const entry of entries) if (!sorted.includes(entry)) sorted.push(entry);
  return `{${sorted.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
}

const sniff = (text: string) => responseIdOf(text.slice(0, SNIFF_CHARS), text.slice(-SNIFF_CHARS));

describe("responseIdOf (property)", () => {
  it("a response in any key order: its id, or nothing; never a wrong id", () => {
    fc.assert(
      fc.property(id, decoy, blob, fc.boolean(), fc.array(fc.nat(), { maxLength: 4 }), (theId, extra, filler, isError, order) => {
        const payload = isError ? ["error", { code: -32603, message: filler, data: extra }] : ["result", { extra, filler }];
        const text = keysInOrder([["jsonrpc", "2.0"], ["id", theId], payload as [string, unknown]], order);
        const found = sniff(text);
        if (found !== undefined) expect(found).toEqual(theId);
      }),
      RUNS,
    );
  });

  it("finds the id where serialisers put it: first, after jsonrpc, or last (the SDK's order)", () => {
    fc.assert(
      fc.property(id, decoy, blob, (theId, extra, filler) => {
        const result = { extra, filler };
        for (const text of [
          JSON.stringify({ jsonrpc: "2.0", id: theId, result }),
          JSON.stringify({ id: theId, jsonrpc: "2.0", result }),
          JSON.stringify({ result, jsonrpc: "2.0", id: theId }),
          JSON.stringify({ jsonrpc: "2.0", result, id: theId }),
        ]) {
          expect(sniff(text)).toEqual(theId);
        }
      }),
      RUNS,
    );
  });

  it("a server request or notification gives nothing, whatever its keys and decoys", () => {
    fc.assert(
      fc.property(id, decoy, blob, fc.boolean(), fc.array(fc.nat(), { maxLength: 4 }), (theId, extra, filler, withId, order) => {
        const entries: [string, unknown][] = [
          ["jsonrpc", "2.0"],
          ["method", "sampling/createMessage"],
          ["params", { extra, filler, result: { id: 1 } }],
        ];
        if (withId) entries.push(["id", theId]);
        expect(sniff(keysInOrder(entries, order))).toBeUndefined();
      }),
      RUNS,
    );
  });
});

describe("NdjsonDecoder: a skipped oversize line names the request it answered", () => {
  it("for responses in either order, through any chunking; not for notifications", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.integer({ min: 300, max: 3000 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 10 }),
        (theId, size, idLast, offsets) => {
          const result = { content: [{ type: "text", text: "x".repeat(size) }] };
          const response = idLast ? JSON.stringify({ result, jsonrpc: "2.0", id: theId }) : JSON.stringify({ jsonrpc: "2.0", id: theId, result });
          const notification = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "y".repeat(size), id: 7 } });
          const wire = Buffer.from(`${notification}\n${response}\n{"jsonrpc":"2.0","id":1,"result":{}}\n`);
          const skipped: JsonRpcId[] = [];
          const values: unknown[] = [];
          const decoder = new NdjsonDecoder({
            maxFrameBytes: 256,
            onValue: (v) => values.push(v),
            onError: () => {},
            onSkipped: (skippedId) => skipped.push(skippedId),
          });
          const points = [...new Set(offsets.map((o) => o % (wire.length + 1)))].sort((a, b) => a - b);
          let start = 0;
          for (const point of [...points, wire.length]) {
            decoder.push(wire.subarray(start, point));
            start = point;
          }
          expect(skipped).toEqual([theId]);
          expect(values).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
        },
      ),
      RUNS,
    );
  });
});
