/**
 * WebSocket framing: any valid JSON-RPC message survives encode/decode, and a real `ws` pair on
 * 127.0.0.1 carries arbitrary messages one per text frame, in order.
 */
import fc from "fast-check";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { decodeWsFrame, encodeWsFrame } from "../../src/framing/websocket.js";

const text = fc.string({
  unit: fc.oneof(fc.constantFrom("a", "é", "中", "👋", "\n", '"', "\\"), fc.string({ unit: "binary", minLength: 1, maxLength: 1 })),
  maxLength: 40,
});
const id = fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), text);
const params = fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)), { maxKeys: 4 });
const message = fc.oneof(
  fc.record({ jsonrpc: fc.constant("2.0"), id, method: text, params }),
  fc.record({ jsonrpc: fc.constant("2.0"), method: text, params }),
  fc.record({ jsonrpc: fc.constant("2.0"), id, result: params }),
  fc.record({ jsonrpc: fc.constant("2.0"), id, error: fc.record({ code: fc.integer({ min: -32768, max: -32000 }), message: text }) }),
);

describe("WebSocket framing (property)", () => {
  it("encode then decode gives the same message; binary frames and non-JSON are errors", () => {
    fc.assert(
      fc.property(message, (m) => {
        const decoded = decodeWsFrame(encodeWsFrame(m), false);
        expect(decoded).toEqual({ ok: true, value: m });
        expect(decodeWsFrame(Buffer.from(encodeWsFrame(m)), true).ok).toBe(false);
      }),
      { numRuns: 1000 },
    );
    const bad = decodeWsFrame("{nope", false);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.message).toMatch(/not JSON/);
  });

  let server: WebSocketServer;
  let url: string;
  beforeAll(async () => {
    server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((resolve) => server.once("listening", () => resolve()));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // An echo peer: every frame goes straight back, as sent.
    server.on("connection", (socket) => socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary })));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("arbitrary message sequences round-trip through a real ws pair, in order", async () => {
    const socket = new WebSocket(url);
    await new Promise((resolve) => socket.once("open", resolve));
    const received: unknown[] = [];
    socket.on("message", (data, isBinary) => {
      const decoded = decodeWsFrame(data, isBinary);
      if (decoded.ok) received.push(decoded.value);
    });
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 20 }), async (messages) => {
        received.length = 0;
        for (const m of messages) socket.send(encodeWsFrame(m));
        const deadline = Date.now() + 5000;
        while (received.length < messages.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
        expect(received).toEqual(messages);
      }),
      { numRuns: 200 },
    );
    socket.close();
  });
});
