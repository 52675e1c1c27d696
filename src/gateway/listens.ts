/**
 * `subscriptions/listen` (2026-07-28): a client's open stream for the list changes it asked for. Each
 * listen is a Downstream that the board's events reach like a 2025 session's GET stream does
 * (board-events.ts), but it lets through only the notifications its filter asked for, each tagged with
 * the listen's id as its subscription id, and never a log message (no log level is set on it).
 */
import { META_SUBSCRIPTION_ID } from "../connection/eras/modern-wire.js";
import type { JsonRpcId, JsonRpcNotification } from "../jsonrpc/messages.js";
import { isObject } from "../util/guards.js";
import type { Downstream } from "./downstream.js";

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
  readonly honoured: Record<string, true> = {};
  private readonly methods = new Set<string>();

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
  }

  /** The first message of the stream: what will be sent on it. */
  acknowledgement(): JsonRpcNotification {
    return {
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: this.honoured, _meta: { [META_SUBSCRIPTION_ID]: this.subscriptionId } },
    };
  }

  push(message: JsonRpcNotification): void {
    if (!this.methods.has(message.method)) return;
    this.write({ ...message, params: { ...message.params, _meta: { [META_SUBSCRIPTION_ID]: this.subscriptionId } } });
  }
}
