/**
 * What a Switchboard knows of one server's tools, so a routing decision never has to guess: whether a
 * failed call may move to a fallback depends on the tool's `readOnlyHint` / `idempotentHint`, and a
 * board on which nobody called `listTools()` must know them too.
 *
 * The list is fetched when the server comes up (after every restart too) and again on each
 * `list_changed`; it is kept while the server is away, so names and annotations stay known. At most one
 * listing runs at a time per server: a change notice that arrives during one makes exactly one more
 * afterwards, however many arrive, so a server flooding `list_changed` costs one `tools/list` per round
 * trip, not one per notice. A failed listing is reported (the board's `error` event) and never takes
 * the server down.
 */
import type { McpClient } from "../client/client.js";
import type { Tool } from "../client/types.js";
import type { FleetListSync } from "./fleet-seam.js";
import { listShared } from "./shared-lists.js";

interface Listing {
  client: McpClient;
  done: Promise<Tool[] | undefined>;
}

/** The server the tools belong to (its ServerRuntime). */
export interface ToolsOwner {
  /** The server's client while it is up, else undefined. */
  currentClient(): McpClient | undefined;
  /** A listing failed. */
  listingFailed(error: Error): void;
  /** A listing brought `tools` (replacing `previous`): the board's index of tool names follows. */
  toolsListed(tools: readonly Tool[], previous: readonly Tool[] | undefined): void;
  /** The fleet's lists of this server (a current copy spares the listing); undefined without a fleet. */
  readonly fleetLists?: FleetListSync | undefined;
}

export class ServerTools {
  /** The last list seen, kept across restarts; undefined until a listing succeeded once. */
  list: Tool[] | undefined;
  /** The list matches the server as of its last change notice (no listing needed). */
  private fresh = false;
  /** Bumped by every change notice, so a listing knows whether what it got is still current. */
  private version = 0;
  private listing: Listing | undefined;
  private bypassCache = false;

  constructor(private readonly owner: ToolsOwner) {}

  private current(): McpClient | undefined {
    return this.owner.currentClient();
  }

  /** The list from a catalog snapshot, until the server lists its own (no listing made, nothing announced). */
  seed(tools: Tool[]): void {
    this.list ??= tools;
  }

  find(name: string): Tool | undefined {
    return this.list?.find((tool) => tool.name === name);
  }

  /**
   * A new client, or the server said its list changed: the list is stale. Lists again at once.
   * `elsewhere`: another member of a fleet heard the change, so this client's cached list is stale too.
   */
  changed(elsewhere = false): void {
    if (elsewhere) this.bypassCache = true;
    this.version++;
    this.fresh = false;
    void this.refresh();
  }

  /**
   * The current list: at once when it is fresh or the server is away (the kept list), else after a
   * listing (one already under way is shared). Never rejects.
   */
  refresh(): Promise<Tool[] | undefined> {
    const client = this.current();
    if (client === undefined) return Promise.resolve(this.list);
    if (this.listing?.client === client) return this.listing.done;
    if (this.fresh) return Promise.resolve(this.list);
    const listing: Listing = { client, done: Promise.resolve(undefined) };
    listing.done = this.listFrom(client).then((listed) => {
      if (this.listing === listing) this.listing = undefined;
      // A change notice arrived while listing: one more, now that this one is done.
      if (listed && !this.fresh && this.current() === client) void this.refresh();
      return this.list;
    });
    this.listing = listing;
    return listing.done;
  }

  private async listFrom(client: McpClient): Promise<boolean> {
    const version = this.version;
    try {
      const options = this.bypassCache ? { cache: false } : undefined;
      this.bypassCache = false;
      const fetch = () => client.listTools(options);
      const tools = client.serverCapabilities?.tools ? await listShared(this.owner.fleetLists, "tools", client, fetch) : [];
      if (this.current() !== client) return false; // restarted meanwhile: the new client lists for itself
      const previous = this.list;
      this.list = tools;
      if (version === this.version) this.fresh = true;
      this.owner.toolsListed(tools, previous);
      return true;
    } catch (error) {
      if (this.current() === client) this.owner.listingFailed(error as Error);
      return false;
    }
  }
}
