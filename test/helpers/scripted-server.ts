/**
 * A hand-driven MCP server on the far side of a memory pair: answers initialize and tools, and lets a
 * test decide per request whether to answer, stay silent, or send progress. Records every message it
 * receives, so tests can assert on the wire.
 */
import { memoryPair, type MemoryTransport } from "../../src/transports/memory.js";
import type { JsonRpcMessage, JsonRpcRequest } from "../../src/jsonrpc/messages.js";

export type Responder = (request: JsonRpcRequest, server: ScriptedServer) => Record<string, unknown> | undefined | "silent";

export class ScriptedServer {
  readonly received: JsonRpcMessage[] = [];
  readonly clientSide: MemoryTransport;
  private readonly serverSide: MemoryTransport;
  capabilities: Record<string, unknown> = { tools: { listChanged: true } };
  protocolVersion: string | undefined;
  handlers = new Map<string, Responder>();

  constructor() {
    [this.clientSide, this.serverSide] = memoryPair();
    void this.serverSide.start({
      message: (message) => this.onMessage(message),
      error: () => {},
      close: () => {},
    });
  }

  on(method: string, responder: Responder): this {
    this.handlers.set(method, responder);
    return this;
  }

  send(message: JsonRpcMessage): void {
    this.serverSide.send(message).catch(() => {});
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.send(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  /** Received messages with that method. */
  messages(method: string): JsonRpcMessage[] {
    return this.received.filter((m) => "method" in m && m.method === method);
  }

  async crash(): Promise<void> {
    await this.serverSide.close();
  }

  private onMessage(message: JsonRpcMessage): void {
    this.received.push(message);
    if (!("method" in message) || !("id" in message)) return;
    const request = message;
    const custom = this.handlers.get(request.method);
    let result: Record<string, unknown> | undefined | "silent";
    if (custom) result = custom(request, this);
    else if (request.method === "initialize") {
      this.protocolVersion = (request.params as { protocolVersion: string }).protocolVersion;
      result = {
        protocolVersion: this.protocolVersion,
        capabilities: this.capabilities,
        serverInfo: { name: "scripted", version: "1.0.0" },
        instructions: "be nice",
      };
    } else if (request.method === "tools/list") result = { tools: [{ name: "echo", inputSchema: { type: "object" } }] };
    else if (request.method === "tools/call") {
      const args = (request.params as { arguments?: { text?: string } }).arguments;
      result = { content: [{ type: "text", text: args?.text ?? "" }] };
    } else if (request.method === "ping") result = {};
    else {
      this.send({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: `Method not found: ${request.method}` } });
      return;
    }
    if (result === "silent" || result === undefined) return;
    this.send({ jsonrpc: "2.0", id: request.id, result });
  }
}
