/**
 * A hand-driven 2026-07-28 server on a memory pair (a ScriptedServer with the stateless era's answers):
 * `server/discover`, lists and calls with `resultType`, `-32022` for `initialize`, listens acknowledged
 * as asked and kept open (it advertises listChanged, as real servers that do implement listen). Tests override any
 * method with `on()` and read the wire from `received`.
 */
import type { McpClient, Subscription } from "../../src/index.js";
import type { JsonRpcId, JsonRpcRequest } from "../../src/jsonrpc/messages.js";
import { ScriptedServer } from "./scripted-server.js";

export const ENVELOPE_VERSION = "io.modelcontextprotocol/protocolVersion";
export const ENVELOPE_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const ENVELOPE_INFO = "io.modelcontextprotocol/clientInfo";

export const DISCOVER_RESULT = {
  resultType: "complete",
  supportedVersions: ["2026-07-28"],
  capabilities: {
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    logging: {},
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
  instructions: "modern instructions",
  ttlMs: 60_000,
  cacheScope: "public",
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "modern-scripted", version: "2.0.0" } },
};

export function modernServer(): ScriptedServer {
  const server = new ScriptedServer();
  server
    .on("server/discover", () => DISCOVER_RESULT)
    .on("initialize", (request, s) => {
      s.send({
        jsonrpc: "2.0",
        id: request.id,
        error: { code: -32022, message: "Unsupported protocol version", data: { supported: ["2026-07-28"], requested: "2025-11-25" } },
      });
      return "silent";
    })
    .on("tools/list", () => ({ resultType: "complete", ttlMs: 5000, cacheScope: "private", tools: [{ name: "echo", inputSchema: { type: "object" } }] }))
    .on("subscriptions/listen", (request, s) => {
      const notifications = (request.params as { notifications?: unknown }).notifications;
      s.notify("notifications/subscriptions/acknowledged", { notifications, _meta: { "io.modelcontextprotocol/subscriptionId": request.id } });
      return "silent";
    })
    .on("tools/call", (request) => {
      const args = (request.params as { arguments?: { text?: string } }).arguments;
      return { resultType: "complete", content: [{ type: "text", text: args?.text ?? "" }] };
    });
  return server;
}

export function replyError(server: ScriptedServer, id: JsonRpcId, code: number, message: string, data?: unknown): "silent" {
  server.send({ jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } });
  return "silent";
}

export function metaOf(request: unknown): Record<string, unknown> {
  return ((request as JsonRpcRequest).params?._meta ?? {}) as Record<string, unknown>;
}

export function requestsOf(server: ScriptedServer): JsonRpcRequest[] {
  return server.received.filter((m): m is JsonRpcRequest => "method" in m && "id" in m);
}

/**
 * The subscriptions a 2026 connection opened for itself (the automatic listen, the resource watch).
 * They are not public, so tests reach them through the connection's internals to check routing: the
 * connection events a notification becomes fire whichever stream it was routed to, or none.
 */
export function heldSubscriptions(client: McpClient): Subscription[] {
  const dialect = (client.connection as unknown as { dialect: { subscriptions: Set<Subscription> } }).dialect;
  return [...dialect.subscriptions];
}

/** Records the subscription ids of the notifications routed to `subscription`. */
export function routedIds(subscription: Subscription): unknown[] {
  const ids: unknown[] = [];
  subscription.on("notification", (_method, params) =>
    ids.push((params?._meta as Record<string, unknown> | undefined)?.["io.modelcontextprotocol/subscriptionId"]),
  );
  return ids;
}
