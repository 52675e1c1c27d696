/**
 * `resources/subscribe` and `resources/unsubscribe` (2025 era): a client subscribes to a resource of the
 * board, the gateway subscribes once upstream (with the server that owns the URI) however many of its
 * clients ask, and each `notifications/resources/updated` from that server reaches the clients that
 * subscribed to that URI. The last unsubscribe ends the upstream subscription. A server that offers no
 * subscriptions is not asked: its resources are subscribed to here only, and never report an update.
 */
import type { McpClient } from "../client/client.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ProtocolError } from "../jsonrpc/errors.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import type { GatewayCatalog } from "./catalog.js";
import type { Downstream } from "./downstream.js";

type Params = Record<string, unknown>;

function uriOf(params: Params, method: string): string {
  if (typeof params.uri !== "string") throw new ProtocolError(`${method} needs params.uri (a string)`, ErrorCode.InvalidParams);
  return params.uri;
}

export class ResourceSubscriptions {
  /** The clients subscribed to each URI, and the server it was subscribed with. */
  private readonly byUri = new Map<string, { server: string; clients: Set<Downstream> }>();
  /** The upstream clients whose `resourceUpdated` events are forwarded. */
  private readonly heard = new WeakSet<McpClient>();

  constructor(
    private readonly board: Switchboard,
    private readonly catalog: GatewayCatalog,
  ) {}

  async subscribe(params: Params, downstream: Downstream, signal: AbortSignal): Promise<Params> {
    const uri = uriOf(params, "resources/subscribe");
    const known = this.byUri.get(uri);
    if (known !== undefined) {
      known.clients.add(downstream);
      return {};
    }
    const server = await this.catalog.owner(uri);
    const client = this.board.client(server);
    if (client === undefined) throw new ProtocolError(`Resource not found: ${uri} (server "${server}" is not running)`, ErrorCode.ResourceNotFound, { uri });
    // The gateway declares subscriptions for all its servers: one without them never reports an update.
    if (client.serverCapabilities?.resources?.subscribe === true) await client.subscribeResource(uri, { signal });
    if (!this.heard.has(client)) {
      this.heard.add(client);
      client.on("resourceUpdated", (updated) => this.updated(updated));
    }
    const entry = this.byUri.get(uri) ?? { server, clients: new Set<Downstream>() };
    entry.clients.add(downstream);
    this.byUri.set(uri, entry);
    return {};
  }

  async unsubscribe(params: Params, downstream: Downstream, signal: AbortSignal): Promise<Params> {
    const uri = uriOf(params, "resources/unsubscribe");
    const entry = this.byUri.get(uri);
    if (entry === undefined || !entry.clients.delete(downstream) || entry.clients.size > 0) return {};
    this.byUri.delete(uri);
    const client = this.board.client(entry.server);
    if (client?.serverCapabilities?.resources?.subscribe === true) await client.unsubscribeResource(uri, { signal });
    return {};
  }

  /** Ends every subscription of a client that went away (a closed listen or session). */
  release(downstream: Downstream): void {
    for (const [uri, entry] of this.byUri) {
      if (!entry.clients.delete(downstream) || entry.clients.size > 0) continue;
      this.byUri.delete(uri);
      const client = this.board.client(entry.server);
      // Nobody waits for this answer: a failure leaves only the upstream subscription, whose updates no
      // client hears.
      if (client?.serverCapabilities?.resources?.subscribe === true) client.unsubscribeResource(uri).catch(() => undefined);
    }
  }

  private updated(params: { uri: string; [key: string]: unknown }): void {
    for (const client of this.byUri.get(params.uri)?.clients ?? [])
      client.push({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: params.uri } });
  }
}
