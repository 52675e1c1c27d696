/**
 * JSON-RPC 2.0 message shapes as MCP uses them, and the structural guards that classify an incoming
 * value. The guards check only what routing needs (a few property reads): schema validation of
 * payloads never runs on the per-message path.
 */

export type JsonRpcId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResultResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  /** null when the peer could not tell which request failed (parse error). */
  id: JsonRpcId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export type MessageKind = "request" | "notification" | "result" | "error";

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/**
 * Says what an incoming value is, or `undefined` when it is not a JSON-RPC 2.0 message at all.
 * Order matters: a message with `method` and `id` is a request, with `method` only a notification.
 */
export function classifyMessage(value: unknown): MessageKind | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return undefined;
  if (typeof m.method === "string") {
    if (m.params !== undefined && (typeof m.params !== "object" || m.params === null)) return undefined;
    return "id" in m ? (isId(m.id) ? "request" : undefined) : "notification";
  }
  if ("result" in m) return isId(m.id) && typeof m.result === "object" && m.result !== null ? "result" : undefined;
  if ("error" in m) {
    const e = m.error as Record<string, unknown> | null;
    if (typeof e !== "object" || e === null || typeof e.code !== "number" || typeof e.message !== "string") return undefined;
    return m.id === null || isId(m.id) ? "error" : undefined;
  }
  return undefined;
}
