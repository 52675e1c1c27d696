/** The in-process echo responder the overhead benchmarks share: a server side of a memory pair with no I/O. */
import type { MemoryTransport } from "./runtime.js";

export const MEMORY = "memory pair, in-process responder";
export const STDIO = "stdio raw responder";

/** Answers initialize, tools/list and tools/call on the server side of a memory pair. */
export function respond(transport: MemoryTransport): void {
  void transport.start({
    message: (m) => {
      if (!("method" in m) || !("id" in m)) return;
      const result =
        m.method === "initialize"
          ? { protocolVersion: "2025-11-25", capabilities: { tools: {} }, serverInfo: { name: "bench", version: "1" } }
          : m.method === "tools/list"
            ? { tools: [{ name: "echo", inputSchema: { type: "object" } }] }
            : { content: [{ type: "text", text: "hello" }] };
      void transport.send({ jsonrpc: "2.0", id: m.id, result });
    },
    error: () => {},
    close: () => {},
  });
}
