/**
 * Serves an official SDK server over one of our transports (e.g. the server side of `memoryPair()`):
 * adapts our `Transport` to the SDK v1 `Transport` interface (start/send/close + callbacks).
 */
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/messages.js";
import type { Transport } from "../../src/transports/transport.js";

export function toSdkTransport(transport: Transport): SdkTransport {
  const adapter: SdkTransport = {
    async start() {
      await transport.start({
        message: (message) => adapter.onmessage?.(message as JSONRPCMessage),
        error: (error) => adapter.onerror?.(error),
        close: () => adapter.onclose?.(),
      });
    },
    async send(message) {
      await transport.send(message as JsonRpcMessage);
    },
    async close() {
      await transport.close();
    },
  };
  return adapter;
}
