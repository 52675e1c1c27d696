/** The in-process echo responder the overhead benchmarks share: a server side of a memory pair with no I/O. */
import type { MemoryTransport } from "./runtime.js";

export const MEMORY = "memory pair, in-process responder";
export const STDIO = "stdio raw responder";

/** What the responder lists and answers; by default one `echo` tool answering "hello" at once. */
export interface ResponderShape {
  tools?: Array<Record<string, unknown>>;
  result?: Record<string, unknown>;
  /** Each tools/call is answered after this many ms (a server that does some work). */
  delayMs?: number;
}

/** Answers initialize, tools/list and tools/call on the server side of a memory pair. */
export function respond(transport: MemoryTransport, shape: ResponderShape = {}): void {
  const tools = shape.tools ?? [{ name: "echo", inputSchema: { type: "object" } }];
  const called = shape.result ?? { content: [{ type: "text", text: "hello" }] };
  const delayMs = shape.delayMs ?? 0;
  void transport.start({
    message: (m) => {
      if (!("method" in m) || !("id" in m)) return;
      const result =
        m.method === "initialize"
          ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "bench", version: "1" } }
          : m.method === "tools/list"
            ? { tools }
            : called;
      const send = () => void transport.send({ jsonrpc: "2.0", id: m.id, result });
      if (delayMs > 0 && m.method === "tools/call") setTimeout(send, delayMs);
      else send();
    },
    error: () => {},
    close: () => {},
  });
}
