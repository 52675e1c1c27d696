/**
 * The limit for Streamable HTTP on undici: the raw loop of rawHttpClient (raw-http-client.ts), on
 * undici's `Pool.request` instead of node:http: keep-alive POSTs on one Pool (64 connections, no
 * pipelining, as the transport's), one JSON.parse per reply, nothing else. The URL is parsed once, the
 * constant headers are one object; SSE replies are read by slicing the single `data:` line out.
 */
import { Pool } from "undici";
import { rawSession, sseData } from "./raw-http-client.js";
import type { Caller } from "./throughput-matrix.js";

export async function rawUndiciClient(url: string, args: Record<string, unknown>): Promise<Caller> {
  const { origin, pathname } = new URL(url);
  const pool = new Pool(origin, { connections: 64, pipelining: 1 });
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const options = { path: pathname, method: "POST" as const, headers, body: "" };
  const post = async (body: string, onSession?: (session: unknown) => void) => {
    const response = await pool.request({ ...options, body });
    onSession?.(response.headers["mcp-session-id"]);
    const data = await response.body.text();
    return data.length === 0 ? undefined : JSON.parse(data.charCodeAt(0) === 123 ? data : sseData(data));
  };
  const call = await rawSession(post, (session) => (headers["mcp-session-id"] = session), args);
  return { call, close: () => pool.destroy() };
}
