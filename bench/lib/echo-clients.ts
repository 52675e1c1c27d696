/**
 * The clients and servers the throughput matrices compare, built the same way for every transport:
 * each client calls `echo` with the same arguments; only how it reaches the server differs.
 */
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport as SdkTransport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { connect, type Target } from "./runtime.js";
import { startServerProcess } from "./server-process.js";
import type { BenchServer, ClientFactory } from "./throughput-matrix.js";

export const ECHO_ARGS = { text: "hello" };

/** This client, on the 2025 era (what the SDK 1.x client speaks), over the target made from the address. */
export function ourEchoClient(target: (address: string) => Target): ClientFactory {
  return async (address) => {
    const client = await connect(target(address), { protocol: "legacy" });
    return { call: () => client.callTool("echo", ECHO_ARGS), close: () => client.close() };
  };
}

/** The official SDK 1.x Client over the transport made from the address. */
export function sdkEchoClient(transport: (address: string) => SdkTransport): ClientFactory {
  return async (address) => {
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(transport(address));
    return { call: () => client.callTool({ name: "echo", arguments: ECHO_ARGS }), close: () => client.close() };
  };
}

/** A bundled server script in its own process (client and server each get a core), reached at `address(port)`. */
export function serverProcess(script: string, address: (port: number) => string): () => Promise<BenchServer> {
  return async () => {
    const server = await startServerProcess(fileURLToPath(new URL(`../../examples/servers/${script}`, import.meta.url)));
    return { address: address(server.port), stop: server.stop };
  };
}
