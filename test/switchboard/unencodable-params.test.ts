/**
 * A caller's arguments that cannot be written as JSON (a BigInt, a cycle, nesting too deep) fail as an
 * EncodingError: nothing was sent, so they neither move to a fallback nor count against a healthy
 * server's circuit breaker (before, each counted as a transport failure: five such calls opened the
 * circuits of a server and its fallback, and good calls then failed with "circuit open").
 */
import { describe, expect, it } from "vitest";
import { EncodingError } from "../../src/jsonrpc/errors.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { boardsAfterEach, echoServer, node } from "./board-helpers.js";

const board = boardsAfterEach();
const echo = { command: node, args: [echoServer] };

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = { text: "x" };
  value.self = value;
  return value;
}

function deep(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let current = root;
  for (let i = 0; i < levels; i++) current = current.x = {};
  return { text: "x", deep: root };
}

describe("arguments that cannot be written as JSON", () => {
  it("fail as an EncodingError, move to no fallback and leave the circuits closed, on the routed and the direct path", async () => {
    const b = board({ servers: { a: { ...echo, fallbacks: ["b"], maxConcurrency: 4 }, b: echo, direct: echo } });
    const moved: string[] = [];
    b.on("fallback", (event) => moved.push(`${event.from}->${event.to}`));
    await b.start();
    await b.listTools();
    for (const name of ["a__echo", "direct__echo"])
      for (let i = 0; i < 8; i++) {
        const error = await b.callTool(name, { text: 1n as unknown as string }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(EncodingError);
        expect(error).toMatchObject({ code: -32602, delivered: false, retryable: false });
        expect((error as Error).message).toMatch(/tools\/call cannot be sent: its params are not JSON \(.*BigInt.*\); nothing was sent/);
      }
    expect(moved).toEqual([]);
    for (const server of ["a", "b", "direct"]) expect(b.status()[server].circuit).toBe("closed");
    expect((await b.callTool("a__echo", { text: "ok" })).content).toEqual([{ type: "text", text: "ok" }]);
    expect((await b.callTool("direct__echo", { text: "ok" })).content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("a cycle or nesting deeper than the encoder goes, over Streamable HTTP too", async () => {
    const upstream = await startStreamableHttpServer({ stateful: true });
    try {
      const b = board({ servers: { web: { url: upstream.url } } });
      await b.start();
      for (const args of [cyclic(), deep(20_000)]) {
        const error = await b.callTool("web__echo", args).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(EncodingError);
      }
      expect(b.status().web.circuit).toBe("closed");
      expect((await b.callTool("web__echo", { text: "ok" })).content).toEqual([{ type: "text", text: "ok" }]);
    } finally {
      await upstream.close();
    }
  });
});
