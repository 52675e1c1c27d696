/**
 * A Switchboard entry's `maxConcurrency` counts calls only (src/transports/http-pools.ts): against the
 * SDK's Streamable HTTP server, which keeps the standalone GET stream open for the session, N calls are
 * in flight at the server at once at `maxConcurrency: N`, and all of them complete. Before the stream
 * had its own pool it held one of the N sockets: at 1 every call hung until its timeout, at 2 the calls
 * ran one at a time.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { connect } from "../../src/index.js";
import { Switchboard } from "../../src/switchboard/switchboard.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { waitFor } from "../helpers/processes.js";

const track = closeAfterEach();

/** The SDK server with one tool that takes 300 ms, counting the calls inside it at once. */
async function slowServer() {
  const seen = { now: 0, most: 0 };
  const server = track(
    await startStreamableHttpServer({
      stateful: true,
      createServer: (name) => {
        const mcp = new McpServer({ name, version: "1.0.0" });
        mcp.registerTool("slow", { description: "Takes 300 ms." }, async () => {
          seen.most = Math.max(seen.most, ++seen.now);
          await new Promise((resolve) => setTimeout(resolve, 300));
          seen.now--;
          return { content: [{ type: "text", text: "done" }] };
        });
        return mcp;
      },
    }),
  );
  return { server, seen };
}

const done = (n: number) => Array.from({ length: n }, () => [{ type: "text", text: "done" }]);

describe("maxConcurrency on a Streamable HTTP entry with the GET stream open", () => {
  for (const limit of [1, 2, 3]) {
    it(`at maxConcurrency ${limit}, ${limit} of ${limit + 1} calls are at the server at once and all complete`, async () => {
      const { server, seen } = await slowServer();
      const board = new Switchboard({ servers: { s: { url: server.url, maxConcurrency: limit, requestTimeoutMs: 5000 } } });
      track({ close: () => board.stop() });
      await board.start();
      // The GET stream is open (and stays open) before the calls go out.
      await waitFor(() => server.requests.some((r) => r.method === "GET"), 5000);
      const results = await Promise.all(Array.from({ length: limit + 1 }, () => board.callTool("s__slow", {})));
      expect(results.map((r) => r.content)).toEqual(done(limit + 1));
      expect(seen.most).toBe(limit);
    });
  }

  it("a client with `connections: 1` keeps its one socket for requests while the GET stream is open", async () => {
    const { server, seen } = await slowServer();
    const client = track(await connect({ url: server.url, connections: 1 }, { requestTimeoutMs: 5000 }));
    await waitFor(() => server.requests.some((r) => r.method === "GET"), 5000);
    const results = await Promise.all([client.callTool("slow", {}), client.callTool("slow", {})]);
    expect(results.map((r) => r.content)).toEqual(done(2));
    expect(seen.most).toBe(1);
  });
});
