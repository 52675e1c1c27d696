/** What the gateway tests share: a board of the bundled echo server (stdio), served, and closed after each test. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serveBoard, type Gateway, type ServeBoardOptions } from "../../src/gateway/index.js";
import type { Switchboard, SwitchboardInit } from "../../src/switchboard/switchboard.js";
import { boardsAfterEach, echoServer, node } from "../switchboard/board-helpers.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";

export const echo = { command: node, args: [echoServer] };

export function gatewaysAfterEach() {
  const board = boardsAfterEach();
  const track = closeAfterEach();
  return {
    track,
    /** A started board served by a gateway (closed, then the board stopped, after the test). */
    async serve(init: SwitchboardInit = { servers: { echo } }, options: ServeBoardOptions = {}): Promise<Gateway & { board: Switchboard }> {
      const b = board(init);
      await b.start();
      return Object.assign(track(await serveBoard(b, options)), { board: b });
    },
    board,
    /** The official SDK client, connected to `url`. */
    async sdkClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
      const client = new Client({ name: "sdk-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      return track(client);
    },
  };
}

/** A raw POST to the gateway, with the headers a conforming client sends unless overridden. */
export function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body,
  });
}

export const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** A raw 2026 `subscriptions/listen` POST asking for `notifications`; abort `signal` to close it. */
export function postListen(url: string, id: string | number, notifications: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
  };
  return fetch(url, {
    method: "POST",
    signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "subscriptions/listen", params: { _meta, notifications } }),
  });
}

/** An upstream server of one subscribable resource that records its subscribe and unsubscribe requests. */
export async function filesServer() {
  const calls: string[] = [];
  const servers: McpServer[] = [];
  const upstream = await startStreamableHttpServer({
    stateful: true,
    createServer: () => {
      const server = new McpServer({ name: "files", version: "1.0.0" }, { capabilities: { resources: { subscribe: true, listChanged: true } } });
      server.registerResource("notes", "test://notes", { mimeType: "text/plain" }, async (uri) => ({ contents: [{ uri: uri.href, text: "n" }] }));
      server.server.setRequestHandler(SubscribeRequestSchema, async (request) => (calls.push(`subscribe ${request.params.uri}`), {}));
      server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => (calls.push(`unsubscribe ${request.params.uri}`), {}));
      servers.push(server);
      return server;
    },
  });
  return { calls, upstream, updated: (uri: string) => servers.at(-1)!.server.sendResourceUpdated({ uri }) };
}
