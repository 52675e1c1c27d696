/**
 * The limit for Streamable HTTP, the leanest honest loop: keep-alive POSTs on one node:http Agent, one
 * JSON.parse per reply, nothing else. Per request it builds only what must differ (the body, with its
 * id, and its length): the URL is parsed once, the constant headers are one object, no promise but the
 * one per request, no header read on replies after the handshake. SSE replies (the SDK server) are read
 * by slicing the single `data:` line out of the event.
 */
import http from "node:http";
import type { Caller } from "./throughput-matrix.js";

export async function rawHttpClient(url: string, args: Record<string, unknown>): Promise<Caller> {
  const { hostname, port, pathname } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const base: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const options = { agent, hostname, port, path: pathname, method: "POST", headers: base };
  const post = (body: string, onSession?: (session: unknown) => void) =>
    new Promise<unknown>((resolve, reject) => {
      base["content-length"] = String(Buffer.byteLength(body));
      const request = http.request(options, (response) => {
        onSession?.(response.headers["mcp-session-id"]);
        let data = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (data += chunk));
        response.on("end", () => resolve(data.length === 0 ? undefined : JSON.parse(data.charCodeAt(0) === 123 ? data : sseData(data))));
      });
      request.on("error", reject);
      request.end(body);
    });
  const call = await rawSession(post, (session) => (base["mcp-session-id"] = session), args);
  return { call, close: async () => agent.destroy() };
}

/** The payload of a one-event SSE body: the text between `data: ` and the end of that line. */
export function sseData(body: string): string {
  const start = body.indexOf("data: ") + 6;
  const end = body.indexOf("\n", start);
  return body.slice(start, end === -1 ? undefined : end);
}

/**
 * What both raw loops (this one and raw-undici-client.ts) do over their own `post`: initialize, keeping
 * the session id, notifications/initialized, then one tools/call per call, the params serialised once.
 */
export async function rawSession(
  post: (body: string, onSession?: (session: unknown) => void) => Promise<unknown>,
  keepSession: (session: string) => void,
  args: Record<string, unknown>,
): Promise<() => Promise<unknown>> {
  const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } };
  await post(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: initialize }), (session) => {
    if (typeof session === "string") keepSession(session);
  });
  await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const params = JSON.stringify({ name: "echo", arguments: args });
  let id = 1;
  return () => post(`{"jsonrpc":"2.0","id":${id++},"method":"tools/call","params":${params}}`);
}
