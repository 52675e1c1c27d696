/**
 * A proxy in front of one upstream Streamable HTTP server, in its own process for bench/gateway.ts:
 * `ours` is a Switchboard served by serveBoard() (the package's gateway), `sdk` is a proxy built from
 * the official SDK alone (an SDK Server per session on StreamableHTTPServerTransport, forwarding
 * tools/list and tools/call to one SDK Client), `raw` knows nothing of MCP: node:http in, one undici
 * Pool out, each request's bytes and session headers forwarded untouched. No proxy in Node does less
 * per call, so `raw` is the floor any gateway built on node:http and undici stands on. Prints its port
 * on stdout; exits when stdin ends.
 * Usage: gateway-proxy.ts ours|sdk|raw <upstream url>
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Pool } from "undici";
import type * as Gateway from "../../src/gateway/index.js";
import { Switchboard } from "./runtime.js";

const [mode, upstream] = process.argv.slice(2);
if ((mode !== "ours" && mode !== "sdk" && mode !== "raw") || upstream === undefined) throw new Error("usage: gateway-proxy.ts ours|sdk|raw <upstream url>");

async function ours(): Promise<{ port: number; close(): Promise<void> }> {
  const { serveBoard, PASS_THROUGH_CAPABILITIES } = (await import(
    process.env.BENCH_DIST ? new URL("../../dist/gateway/index.js", import.meta.url).href : "../../src/gateway/index.js"
  )) as typeof Gateway;
  // As `mcp-switchboard serve` builds it: the board declares what downstream clients may be asked to pass on.
  const board = new Switchboard({ servers: { up: { url: upstream } }, client: { protocol: "legacy", capabilities: PASS_THROUGH_CAPABILITIES } });
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

/** Listens on an ephemeral loopback port; close() drops the connections, stops listening, then lets go of `upstream`. */
async function listening(http: HttpServer, releaseUpstream: () => Promise<void>): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    port: (http.address() as AddressInfo).port,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await releaseUpstream();
    },
  };
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
  return listening(http, () => client.close());
}

const FORWARDED = ["content-type", "accept", "mcp-session-id", "mcp-protocol-version"] as const;

function pick(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = headers[name];
    if (typeof value === "string") picked[name] = value;
  }
  return picked;
}

async function raw(): Promise<{ port: number; close(): Promise<void> }> {
  const target = new URL(upstream);
  const pool = new Pool(target.origin, { connections: 128 });
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      pool
        .request({ path: target.pathname, method: request.method as "POST", headers: pick(request.headers, FORWARDED), body: Buffer.concat(chunks) })
        .then(async (reply) => {
          const body = Buffer.from(await reply.body.arrayBuffer());
          const headers = { ...pick(reply.headers, ["content-type", "mcp-session-id"]), "content-length": String(body.length) };
          response.writeHead(reply.statusCode, headers).end(body);
        })
        .catch(() => response.writeHead(502).end());
    });
  });
  http.keepAliveTimeout = 60_000;
  return listening(http, () => pool.close());
}

const proxy = mode === "ours" ? await ours() : mode === "sdk" ? await sdk() : await raw();
process.stdout.write(`${proxy.port}\n`);
process.stdin.resume();
process.stdin.once("end", () => void proxy.close().then(() => process.exit(0)));
