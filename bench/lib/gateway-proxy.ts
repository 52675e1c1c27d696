/**
 * A proxy in front of one upstream Streamable HTTP server, in its own process for bench/gateway.ts:
 * `ours` is a Switchboard served by serveBoard() (the package's gateway), `sdk` is a proxy built from
 * the official SDK alone (an SDK Server per session on StreamableHTTPServerTransport, forwarding
 * tools/list and tools/call to one SDK Client). Prints its port on stdout; exits when stdin ends.
 * Usage: gateway-proxy.ts ours|sdk <upstream url>
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type * as Gateway from "../../src/gateway/index.js";
import { Switchboard } from "./runtime.js";

const [mode, upstream] = process.argv.slice(2);
if ((mode !== "ours" && mode !== "sdk") || upstream === undefined) throw new Error("usage: gateway-proxy.ts ours|sdk <upstream url>");

async function ours(): Promise<{ port: number; close(): Promise<void> }> {
  const { serveBoard } = (await import(
    process.env.BENCH_DIST ? new URL("../../dist/gateway/index.js", import.meta.url).href : "../../src/gateway/index.js"
  )) as typeof Gateway;
  const board = new Switchboard({ servers: { up: { url: upstream } }, client: { protocol: "legacy" } });
  await board.start();
  const gateway = await serveBoard(board, { port: 0 });
  return {
    port: Number(new URL(gateway.url).port),
    close: async () => {
      await gateway.close();
      await board.stop();
    },
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of request) text += chunk;
  return text ? JSON.parse(text) : undefined;
}

async function sdk(): Promise<{ port: number; close(): Promise<void> }> {
  const client = new Client({ name: "sdk-proxy", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(upstream)));
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const newServer = () => {
    const server = new Server({ name: "sdk-proxy", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => client.listTools(request.params));
    server.setRequestHandler(CallToolRequestSchema, (request) => client.callTool(request.params));
    return server;
  };
  const http = createServer((request, response) => {
    void (async () => {
      const id = request.headers["mcp-session-id"];
      const body = request.method === "POST" ? await readJson(request) : undefined;
      let transport = typeof id === "string" ? sessions.get(id) : undefined;
      if (transport === undefined) {
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          enableJsonResponse: true,
          onsessioninitialized: (sid) => void sessions.set(sid, transport!),
        });
        await newServer().connect(transport);
      }
      await transport.handleRequest(request, response, body);
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    port: (http.address() as AddressInfo).port,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await client.close();
    },
  };
}

const proxy = mode === "ours" ? await ours() : await sdk();
process.stdout.write(`${proxy.port}\n`);
process.stdin.resume();
process.stdin.once("end", () => void proxy.close().then(() => process.exit(0)));
