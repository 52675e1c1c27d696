#!/usr/bin/env node
// The SDK v2 test server (modern-tools.mjs) over Streamable HTTP on 127.0.0.1, from the SDK's
// fetch-shaped createMcpHandler behind a small node:http adapter (client disconnects abort the web
// Request, so the SDK sees cancellation). Run directly: argv[2] "modern-only" (default) or "dual";
// prints the URL on stdout. Tests import startModernHttp() instead.
import http from "node:http";
import { fileURLToPath } from "node:url";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { createModernServer } from "./modern-tools.mjs";

/** @param {{ legacy: "reject" | "stateless", name?: string, onRequest?: (record: object) => void, extraTools?: string[] }} options */
export async function startModernHttp({ legacy, name = `sdk-v2-http-${legacy}`, onRequest, extraTools = [] }) {
  const handler = createMcpHandler(() => createModernServer(name, { extraTools }), { legacy, keepAliveMs: 0 });
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    let parsed;
    try {
      parsed = body.length ? JSON.parse(body.toString()) : undefined;
    } catch {
      parsed = undefined;
    }
    onRequest?.({ method: req.method, headers: req.headers, body: parsed });
    await answerByFetch(handler.fetch, req, res, body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    notify: handler.notify,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Answers a node:http request (its body read already) with a fetch-shaped handler such as the SDK's
 * createMcpHandler; a client that goes away aborts the web Request.
 * @param {(request: Request) => Promise<Response>} fetch
 * @param {http.IncomingMessage} req
 * @param {http.ServerResponse} res
 * @param {Buffer} body
 */
export async function answerByFetch(fetch, req, res, body) {
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value);
  const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body: body.length ? body : undefined, signal: gone.signal });
  try {
    const response = await fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  } catch (error) {
    if (!res.headersSent) res.writeHead(500).end(String(error));
    else res.destroy();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const running = await startModernHttp({ legacy: process.argv[2] === "dual" ? "stateless" : "reject" });
  process.stdout.write(`${running.url}\n`);
  process.stdin.resume();
  process.stdin.on("end", () => running.close().then(() => process.exit(0)));
}
