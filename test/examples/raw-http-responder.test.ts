/**
 * The benchmarks' hand-written HTTP responder (examples/servers/raw-http-responder.mjs) answers this
 * client on all three of its transports: Streamable HTTP on /mcp, the legacy HTTP+SSE one on /sse, and
 * WebSocket, so what the benchmarks compare on it is the same call.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Target } from "../../src/index.js";
import { startServerProcess, type ServerProcess } from "../../bench/lib/server-process.js";

let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess(fileURLToPath(new URL("../../examples/servers/raw-http-responder.mjs", import.meta.url)));
});
afterAll(() => server.stop());

describe("raw HTTP responder", () => {
  const targets: Record<string, () => Target> = {
    "Streamable HTTP": () => ({ url: `http://127.0.0.1:${server.port}/mcp` }),
    "legacy HTTP+SSE": () => ({ url: `http://127.0.0.1:${server.port}/sse`, type: "sse" }),
    WebSocket: () => ({ url: `ws://127.0.0.1:${server.port}/mcp` }),
  };
  for (const [name, target] of Object.entries(targets)) {
    it(`answers echo over ${name}, calls in parallel matched to their replies`, async () => {
      const client = await connect(target(), { protocol: "legacy" });
      try {
        const texts = Array.from({ length: 20 }, (_, i) => `hello ${i}`);
        const results = await Promise.all(texts.map((text) => client.callTool("echo", { text })));
        expect(results.map((r) => (r.content[0] as { text: string }).text)).toEqual(texts);
      } finally {
        await client.close();
      }
    });
  }
});
