/**
 * replyHeaders (src/transports/undici-exchange.ts): the three headers the fast path reads, matched on
 * their bytes in any case, the first value of each, every other header left alone.
 */
import { describe, expect, it } from "vitest";
import { replyHeaders } from "../../src/transports/undici-exchange.js";

const raw = (...pairs: string[]) => pairs.map((s) => Buffer.from(s, "latin1"));

describe("replyHeaders", () => {
  it("finds content-type, content-length and mcp-session-id in any case, first value wins", () => {
    const found = replyHeaders(
      raw("Content-Type", "text/event-stream", "MCP-Session-Id", "s-1", "content-LENGTH", "12", "mcp-session-id", "s-2", "Cache-Control", "no-cache"),
    );
    expect(found).toEqual({ "content-type": "text/event-stream", "mcp-session-id": "s-1", "content-length": "12" });
  });

  it("leaves names of the same length that differ, by one byte or by a byte only case-folding would hide", () => {
    // 12 and 14 bytes like the wanted names: a near miss, `_` for `-`, `\x7f` (0x5f | 0x20), a digit.
    const found = replyHeaders(
      raw("content-typf", "a", "content_type", "b", "mcp-session-i\x7f", "c", "content-lengt1", "d", "x-content-type", "e", "Date", "f"),
    );
    expect(found).toEqual({});
  });

  it("ignores a name without a value", () => {
    expect(replyHeaders(raw("Content-Type"))).toEqual({});
  });
});
