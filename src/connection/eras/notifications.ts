/**
 * The server notifications both eras send under the same names, and the connection events they become.
 * The 2025 era sends them unasked; the 2026 era sends logs on a request's own stream and list changes
 * and resource updates on `subscriptions/listen` streams. Each dialect's `onNotification` decides what
 * reaches this mapping; progress never does (the connection routes it to its request by token).
 */
import type { JsonRpcId } from "../../jsonrpc/messages.js";
import type { LogParams } from "../events.js";
import type { ListKind, Params, Wire } from "./dialect.js";

const CHANGE_EVENTS = { tools: "toolsChanged", resources: "resourcesChanged", prompts: "promptsChanged" } as const;

export function emitNotificationEvent(wire: Wire, method: string, params: Params | undefined): void {
  switch (method) {
    case "notifications/message":
      wire.emit("log", params as LogParams);
      break;
    case "notifications/tools/list_changed":
      announceListChanged(wire, "tools");
      break;
    case "notifications/resources/list_changed":
      announceListChanged(wire, "resources");
      break;
    case "notifications/prompts/list_changed":
      announceListChanged(wire, "prompts");
      break;
    case "notifications/resources/updated":
      wire.emit("resourceUpdated", params as { uri: string });
      break;
  }
}

/**
 * Emits the event a server's `notifications/<kind>/list_changed` would, also for staleness a dialect
 * learns of itself (a -32020 header mismatch, a listen stream that was down), so caches above the
 * connection drop that kind.
 */
export function announceListChanged(wire: Wire, kind: ListKind): void {
  wire.emit(CHANGE_EVENTS[kind]);
}

/** The request a `notifications/cancelled` names, if it names one. */
export function cancelledRequestId(params: Params | undefined): JsonRpcId | undefined {
  const id = params?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/** `notifications/cancelled` for a request of ours; best effort (the connection may be going away). */
export function notifyCancelled(wire: Wire, id: JsonRpcId, reason: string): void {
  wire.sendNotification("notifications/cancelled", { requestId: id, reason }).catch(() => {});
}
