/**
 * Streamable HTTP, 2025 era: a server may send its own requests (elicitation, sampling) on the
 * standalone GET stream, and drops them when no such stream is open (as the SDK's server does). So
 * `connect()` resolves only once that stream is open, or after a bounded wait for a server that never
 * answers the GET. Found by the conformance suite's elicitation scenario, which failed about once in 50
 * runs under load before this.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { connect, type McpClient } from "../../src/index.js";
import { handled } from "../fixtures/handled.js";

let server: http.Server | undefined;
let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A server whose GET stream opens `getDelayMs` late (never, for Infinity); it asks for elicitation on it. */
async function serve(getDelayMs: number): Promise<string> {
  let serverStream: ServerResponse | undefined;
  let pendingCall: { id: unknown; res: ServerResponse } | undefined;
  const sse = (res: ServerResponse, message: unknown) => res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  server = http.createServer(
    handled(async (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "GET") {
        if (getDelayMs === Infinity) return; // never answers
        setTimeout(() => {
          res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s1" }).flushHeaders();
          serverStream = res;
        }, getDelayMs);
        return;
      }
      if (req.method === "DELETE") return void res.writeHead(200).end();
      let text = "";
      for await (const chunk of req) text += chunk;
      const message = JSON.parse(text) as { id?: unknown; method?: string; result?: unknown };
      if (message.method === "initialize") {
        res.writeHead(200, { "content-type": "application/json", "mcp-session-id": "s1" });
        return void res.end(
          JSON.stringify({
            jsonrpc: "2.0",
            id: message.id,
            result: { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "late-get", version: "1" } },
          }),
        );
      }
      if (message.method === "tools/call") {
        res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": "s1" }).flushHeaders();
        pendingCall = { id: message.id, res };
        // Not tied to the call: it goes on the standalone stream, or nowhere.
        if (serverStream)
          sse(serverStream, {
            jsonrpc: "2.0",
            id: "e1",
            method: "elicitation/create",
            params: { message: "name?", requestedSchema: { type: "object", properties: { name: { type: "string", default: "Ada" } } } },
          });
        return;
      }
      if (message.id === "e1" && pendingCall) {
        res.writeHead(202).end();
        sse(pendingCall.res, { jsonrpc: "2.0", id: pendingCall.id, result: { content: [{ type: "text", text: JSON.stringify(message.result) }] } });
        return void pendingCall.res.end();
      }
      res.writeHead(202).end();
    }),
  );
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

it("a server request sent on the GET stream right after connect() reaches the handler, though the stream opened late", async () => {
  const url = await serve(150);
  client = await connect({ url }, { protocol: "legacy", onElicitation: () => ({ action: "accept", content: {} }) });
  const result = await client.callTool("ask", {}, { timeoutMs: 3000 });
  expect(result.content[0]).toMatchObject({ text: JSON.stringify({ action: "accept", content: { name: "Ada" } }) });
});

it("a server that never answers the GET stream still gets a connection, after a bounded wait", async () => {
  const url = await serve(Infinity);
  const started = Date.now();
  client = await connect({ url }, { protocol: "legacy" });
  expect(client.state).toBe("ready");
  // The wait is bounded at about a second: it happened, and it ended.
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  expect(Date.now() - started).toBeLessThan(3000);
});
