/**
 * The limit for Streamable HTTP: keep-alive POSTs with node:http, one JSON-RPC message each, the reply
 * read as JSON or as the single `data:` line of an event stream. No deadlines, no progress, nothing else.
 */
import http from "node:http";
import type { Caller } from "./throughput-matrix.js";

export async function rawHttpClient(url: string, args: Record<string, unknown>): Promise<Caller> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  let id = 0;
  let session: string | undefined;
  const post = (body: unknown) =>
    new Promise<unknown>((resolve, reject) => {
      const text = JSON.stringify(body);
      const headers: Record<string, string> = {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "content-length": String(Buffer.byteLength(text)),
      };
      if (session) headers["mcp-session-id"] = session;
      const request = http.request(url, { method: "POST", agent, headers }, (response) => {
        const sid = response.headers["mcp-session-id"];
        if (typeof sid === "string") session = sid;
        let data = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (data += chunk));
        response.on("end", () => {
          const json = data.startsWith("{") ? data : data.split("\n").find((line) => line.startsWith("data: "))?.slice(6);
          resolve(json ? JSON.parse(json) : undefined);
        });
      });
      request.on("error", reject);
      request.end(text);
    });
  await post({ jsonrpc: "2.0", id: id++, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
  await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    call: () => post({ jsonrpc: "2.0", id: id++, method: "tools/call", params: { name: "echo", arguments: args } }),
    close: async () => agent.destroy(),
  };
}
