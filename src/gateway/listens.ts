/**
 * `subscriptions/listen` (2026-07-28): a client's open stream for the list changes it asked for. Each
 * listen is a Downstream that the board's events reach like a 2025 session's GET stream does
 * (board-events.ts), but it lets through only the notifications its filter asked for, each tagged with
 * the listen's id as its subscription id, and never a log message (no log level is set on it). Its
 * `resourceSubscriptions` subscribe it to those resources as a 2025 session's `resources/subscribe`
 * does (resource-subscriptions.ts); the acknowledgement names the URIs the board could subscribe to.
 */
import { META_SUBSCRIPTION_ID } from "../connection/eras/modern-wire.js";
import type { JsonRpcId, JsonRpcNotification } from "../jsonrpc/messages.js";
import { isObject } from "../util/guards.js";
import type { Downstream } from "./downstream.js";
import type { ResourceSubscriptions } from "./resource-subscriptions.js";

/** The filter fields the gateway honours, by the notification each lets through. */
const HONOURED: Record<string, string> = {
  toolsListChanged: "notifications/tools/list_changed",
  promptsListChanged: "notifications/prompts/list_changed",
  resourcesListChanged: "notifications/resources/list_changed",
};

export class Listen implements Downstream {
  readonly inFlight = new Map<JsonRpcId, AbortController>();
  readonly logLevel = undefined;
  /** The filter fields honoured, as the acknowledgement names them. */
  readonly honoured: Record<string, true | string[]> = {};
  private readonly methods = new Set<string>();
  /** The resource URIs asked for, and those subscribed to (the ones whose updates pass). */
  private readonly asked: string[];
  private readonly subscribed = new Set<string>();
  /** Nothing is sent before the acknowledgement, which the era requires to come first. */
  private acknowledged = false;

  constructor(
    readonly subscriptionId: JsonRpcId,
    readonly principal: string | undefined,
    public protocolVersion: string,
    public clientInfo: { name?: unknown; version?: unknown } | undefined,
    requested: unknown,
    private readonly write: (message: JsonRpcNotification) => void,
  ) {
    const asked = isObject(requested) ? requested : {};
    for (const [field, method] of Object.entries(HONOURED))
      if (asked[field] === true) {
        this.honoured[field] = true;
        this.methods.add(method);
      }
    const uris = asked.resourceSubscriptions;
    this.asked = Array.isArray(uris) ? [...new Set(uris.filter((uri): uri is string => typeof uri === "string"))] : [];
  }

  /**
   * Subscribes to the resources asked for, each as one client of `subscriptions`; a URI the board cannot
   * subscribe to (no server owns it, its server is down) is left out of the acknowledgement.
   */
  async subscribe(subscriptions: ResourceSubscriptions, signal: AbortSignal): Promise<void> {
    const outcomes = await Promise.allSettled(this.asked.map((uri) => subscriptions.subscribe({ uri }, this, signal)));
    this.asked.forEach((uri, index) => outcomes[index]!.status === "fulfilled" && this.subscribed.add(uri));
    if (this.subscribed.size === 0) return;
    this.honoured.resourceSubscriptions = [...this.subscribed];
    this.methods.add("notifications/resources/updated");
  }

  /** The first message of the stream: what will be sent on it. */
  acknowledgement(): JsonRpcNotification {
    this.acknowledged = true;
    return {
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: this.honoured, _meta: { [META_SUBSCRIPTION_ID]: this.subscriptionId } },
    };
  }

  push(message: JsonRpcNotification): void {
    if (!this.acknowledged || !this.methods.has(message.method)) return;
    if (message.method === "notifications/resources/updated" && !this.subscribed.has(message.params?.uri as string)) return;
    this.write({ ...message, params: { ...message.params, _meta: { [META_SUBSCRIPTION_ID]: this.subscriptionId } } });
  }
}
