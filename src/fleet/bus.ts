/**
 * The fleet's pub/sub: one subscriber connection per process (a duplicate of the link's client, since a
 * subscribed connection can send nothing else), shared by everyone who listens: list changes
 * (lists.ts) and each gate's pauses and breaker openings (gate.ts). Redis drops what is published to a
 * subscriber that is away, so after every (re)subscribe each listener's `resync` runs and reads from
 * keys what it may have missed.
 */
import type { FleetClient, FleetLink } from "./link.js";

interface Listener {
  message(text: string): void;
  resync(): void;
}

export class FleetBus {
  private subscriber: FleetClient | undefined;
  private readonly listeners = new Map<string, Listener>();
  /** Channels Redis confirmed this connection is subscribed to (cleared when it drops). */
  private readonly subscribed = new Set<string>();
  private closed = false;

  constructor(private readonly link: FleetLink) {
    void link.settled.then(() => this.connect());
  }

  /**
   * What is published on any channel listened to is heard now: connected, and every channel's
   * subscription confirmed. A gate passes permits from call to call only while this holds (gate.ts).
   */
  get listening(): boolean {
    return this.subscribed.size === this.listeners.size && this.subscriber?.status === "ready";
  }

  /** Hears `channel` from now on (one listener per channel); `resync` runs after each (re)subscribe. */
  listen(channel: string, message: (text: string) => void, resync: () => void = () => {}): void {
    this.listeners.set(channel, { message, resync });
    const subscriber = this.subscriber;
    if (subscriber?.status === "ready") this.subscribe(subscriber, [channel]);
  }

  private connect(): void {
    const client = this.link.client;
    if (client === undefined || this.subscriber !== undefined || this.closed) return;
    const subscriber = (this.subscriber = client.duplicate() as FleetClient);
    subscriber.on("error", () => {}); // the main link reports Redis going away, once
    subscriber.on("close", () => this.subscribed.clear());
    subscriber.on("ready", () => this.subscribe(subscriber, [...this.listeners.keys()]));
    subscriber.on("message", (channel: string, text: string) => this.listeners.get(channel)?.message(text));
    if (subscriber.status === "wait") subscriber.connect().catch(() => {});
  }

  private subscribe(subscriber: FleetClient, channels: string[]): void {
    if (channels.length === 0) return;
    subscriber.subscribe(...channels).then(
      () => {
        for (const channel of channels) {
          this.subscribed.add(channel);
          this.listeners.get(channel)?.resync();
        }
      },
      () => {},
    );
  }

  close(): void {
    this.closed = true;
    this.subscriber?.disconnect();
  }
}
