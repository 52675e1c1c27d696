/**
 * `connect(target, options)`: a transport from the target, a connection over it, negotiation, and an
 * McpClient once the connection is ready.
 */
import { Connection } from "../connection/connection.js";
import { createTransport, type Target } from "../transports/create.js";
import { McpClient } from "./client.js";
import { UrlPolicy } from "../auth/url-policy.js";
import type { ClientOptions } from "./options.js";
import { checkClientOptions } from "./options-check.js";
import { buildServerRequestHandler, declaredCapabilities } from "./server-requests.js";

export async function connect(target: Target, options: ClientOptions = {}): Promise<McpClient> {
  const client = createClient(target, options);
  try {
    await client.start();
  } catch (error) {
    await client.close().catch(() => {});
    throw error;
  }
  return client;
}

/** Builds the client without connecting (`client.start()` connects). Supervisors use this. */
export function createClient(target: Target, options: ClientOptions = {}): McpClient {
  checkClientOptions(options);
  const urlPolicy = options.urlPolicy instanceof UrlPolicy ? options.urlPolicy : new UrlPolicy(options.urlPolicy ?? {});
  const transport = createTransport(target, { maxMessageBytes: options.maxMessageBytes, urlPolicy });
  let client: McpClient | undefined;
  const connection: Connection = new Connection(transport, {
    clientInfo: options.clientInfo as never,
    capabilities: declaredCapabilities(options),
    requestTimeoutMs: options.requestTimeoutMs,
    protocol: options.protocol,
    prior: options.prior,
    maxQueuedRequests: options.maxQueuedRequests,
    instrumentation: options.telemetry,
    negotiation: {
      probeTimeoutMs: options.probeTimeoutMs,
      handshakeTimeoutMs: options.handshakeTimeoutMs,
      tasks: options.tasks,
      autoListen: options.autoListen,
    },
    handleServerRequest: buildServerRequestHandler(options, {
      current: () => client?.roots,
    }),
  });
  client = new McpClient(connection, {
    enforceCapabilities: options.enforceCapabilities,
    roots: options.roots,
    cache: options.cache,
    validateStructuredContent: options.validateStructuredContent,
  });
  return client;
}
