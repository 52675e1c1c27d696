/**
 * Lists shared by the fleet: each server's tool list is kept in Redis (so a member can know a
 * server's tools without listing it), and a `list_changed` one member hears bumps the server's
 * version counter and is published, so every member lists again at once. Pub/sub loses what is sent
 * while a subscriber is disconnected, so after every (re)connect a member compares the counters with
 * the ones it knows and treats any difference as a change it missed.
 */
import type { FleetListSync } from "../switchboard/fleet-seam.js";
import type { FleetClient, FleetLink } from "./link.js";

/** A kept list lives this long after its last listing (s). */
const LIST_TTL_S = 86_400;

export class FleetLists {
  private subscriber: FleetClient | undefined;
  private readonly known = new Map<string, string>();
  private readonly watchers = new Map<string, () => void>();
  private readonly channel: string;

  constructor(private readonly link: FleetLink) {
    this.channel = link.key("lists-changed");
    void link.settled.then(() => this.subscribe());
  }

  private subscribe(): void {
    const client = this.link.client;
    if (client === undefined || this.subscriber !== undefined) return;
    const subscriber = (this.subscriber = client.duplicate() as FleetClient);
    subscriber.on("error", () => {}); // the main link reports Redis going away, once
    subscriber.on("ready", () => {
      subscriber.subscribe(this.channel).then(
        () => this.recheck(),
        () => {},
      );
    });
    subscriber.on("message", (_channel: string, text: string) => {
      const { server, version, member } = JSON.parse(text) as { server: string; version: string; member: string };
      this.known.set(server, version);
      if (member !== this.link.member) this.watchers.get(server)?.();
    });
    if (subscriber.status === "wait") subscriber.connect().catch(() => {});
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

  /** The tools kept for `server`, or undefined. */
  async tools(server: string): Promise<unknown[] | undefined> {
    if (!this.link.healthy) return undefined;
    const text = await this.link.client?.get(this.link.key("server", server, "tools"));
    return text ? (JSON.parse(text) as unknown[]) : undefined;
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
      changed: () => {
        const client = this.link.client;
        if (!this.link.healthy || client === undefined) return;
        // One round trip: bump the counter and tell everyone, in one transaction.
        client
          .multi()
          .incr(this.versionKey(server))
          .exec()
          .then((replies) => {
            const bumped = replies?.[0]?.[1];
            const version = typeof bumped === "number" ? String(bumped) : "";
            this.known.set(server, version);
            return client.publish(this.channel, JSON.stringify({ server, version, member: this.link.member }));
          })
          .catch((error: unknown) => this.link.failed(error));
      },
      listed: (items) => {
        if (!this.link.healthy) return;
        this.link.client
          ?.set(this.link.key("server", server, "tools"), JSON.stringify(items), "EX", LIST_TTL_S)
          .catch((error: unknown) => this.link.failed(error));
      },
    };
  }

  close(): void {
    this.subscriber?.disconnect();
  }
}
