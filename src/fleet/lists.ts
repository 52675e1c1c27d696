/**
 * Lists shared by the fleet. Each server's tool, resource and prompt lists are kept in Redis with the
 * version they were listed at, so a member that starts (or whose server reconnects) takes a current
 * copy instead of listing the server cold (src/switchboard/shared-lists.ts decides what may be kept and
 * for how long). A `list_changed` one member hears bumps the server's version counter, which outdates
 * every kept copy at once, and is published, so every member lists again. Pub/sub loses what is sent
 * while a subscriber is disconnected, so after every (re)connect a member compares the counters with
 * the ones it knows and treats any difference as a change it missed.
 */
import type { FleetListSync, KeptList, SharedListKind } from "../switchboard/fleet-seam.js";
import type { FleetBus } from "./bus.js";
import type { FleetLink } from "./link.js";

interface Entry {
  /** The lists' version the member listed at. */
  v: string;
  items: unknown[];
}

export class FleetLists {
  private readonly known = new Map<string, string>();
  private readonly watchers = new Map<string, () => void>();
  /** Version bumps under way, per server: a listing waits for them, so it never takes a copy they outdate. */
  private readonly bumps = new Map<string, Promise<unknown>>();
  private readonly channel: string;

  constructor(
    private readonly link: FleetLink,
    bus: FleetBus,
  ) {
    this.channel = link.key("lists-changed");
    bus.listen(
      this.channel,
      (text) => {
        const { server, version, member } = JSON.parse(text) as { server: string; version: string; member: string };
        this.known.set(server, version);
        if (member !== this.link.member) this.watchers.get(server)?.();
      },
      () => void this.recheck(),
    );
  }

  private async recheck(): Promise<void> {
    const client = this.link.client;
    const servers = [...this.watchers.keys()];
    if (client === undefined || servers.length === 0 || !this.link.healthy) return;
    try {
      const versions = await client.mget(...servers.map((server) => this.versionKey(server)));
      servers.forEach((server, i) => {
        const version = versions[i] ?? "0";
        const before = this.known.get(server);
        this.known.set(server, version);
        if (before !== undefined && before !== version) this.watchers.get(server)?.();
      });
    } catch (error) {
      this.link.failed(error);
    }
  }

  private versionKey(server: string): string {
    return this.link.key("server", server, "lists-version");
  }

  private listKey(server: string, kind: SharedListKind): string {
    return this.link.key("server", server, "list", kind);
  }

  /** The tools a member last kept for `server` (current or not), or undefined. */
  async tools(server: string): Promise<unknown[] | undefined> {
    if (!this.link.healthy) return undefined;
    const text = await this.link.client?.get(this.listKey(server, "tools"));
    return text ? (JSON.parse(text) as Entry).items : undefined;
  }

  /** The current copy of `server`'s `kind` list: one round trip reads the counter and the copy together. */
  async kept(server: string, kind: SharedListKind): Promise<KeptList> {
    await this.link.settled;
    await this.bumps.get(server);
    const client = this.link.client;
    if (!this.link.healthy || client === undefined) return {};
    try {
      const [counter, text] = await client.mget(this.versionKey(server), this.listKey(server, kind));
      const version = counter ?? "0";
      const entry = text ? (JSON.parse(text) as Entry) : undefined;
      return entry?.v === version && Array.isArray(entry.items) ? { items: entry.items } : { version };
    } catch (error) {
      this.link.failed(error);
      return {};
    }
  }

  private keep(server: string, kind: SharedListKind, version: string, items: readonly unknown[] | undefined, ttlMs: number): void {
    const client = this.link.client;
    if (!this.link.healthy || client === undefined) return;
    const text = items === undefined ? "" : JSON.stringify({ v: version, items });
    client
      .sbKeepList(this.versionKey(server), this.listKey(server, kind), version, text, Math.max(1, Math.ceil(ttlMs)))
      .catch((error: unknown) => this.link.failed(error));
  }

  watch(server: string, onRemoteChange: () => void): FleetListSync {
    this.watchers.set(server, onRemoteChange);
    if (!this.known.has(server) && this.link.healthy) {
      this.link.client
        ?.get(this.versionKey(server))
        .then((version) => {
          if (!this.known.has(server)) this.known.set(server, version ?? "0");
        })
        .catch((error: unknown) => this.link.failed(error));
    }
    return {
      changed: () => this.changed(server),
      kept: (kind) => this.kept(server, kind),
      keep: (kind, version, items, ttlMs) => this.keep(server, kind, version, items, ttlMs),
    };
  }

  private changed(server: string): void {
    const client = this.link.client;
    if (!this.link.healthy || client === undefined) return;
    const bump = client
      .incr(this.versionKey(server))
      .then((bumped) => {
        const version = String(bumped);
        this.known.set(server, version);
        return client.publish(this.channel, JSON.stringify({ server, version, member: this.link.member }));
      })
      .catch((error: unknown) => this.link.failed(error))
      .finally(() => {
        if (this.bumps.get(server) === bump) this.bumps.delete(server);
      });
    this.bumps.set(server, bump);
  }
}
