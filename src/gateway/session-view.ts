/**
 * What a gateway shows of its downstream clients: on the observer page (registered with the board,
 * src/observe/gateway-sessions.ts) and on the OpenTelemetry spans of their calls
 * (src/telemetry/gateway-session.ts): who the client is, who it authenticated as, how much it called.
 */
import { clientLabel, registerGatewaySessions, type GatewaySessionView } from "../observe/gateway-sessions.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import type { Downstream } from "./downstream.js";

/** Only this much of a session id is shown: it tells sessions apart, and a shown id cannot be used. */
const SHOWN_ID_CHARS = 8;

export function sessionView(downstream: Downstream): GatewaySessionView {
  const started = downstream.startedAt ?? Date.now();
  return {
    id: (downstream.id ?? "stdio").slice(0, SHOWN_ID_CHARS),
    client: clientLabel(downstream.clientInfo),
    principal: downstream.principal,
    calls: downstream.calls ?? 0,
    startedAt: started,
    lastActiveAt: downstream.lastSeen ?? started,
  };
}

/** Shows `downstreams` on `board`'s observer until the function returned is called. */
export function showSessions(board: Switchboard, downstreams: () => Iterable<Downstream>): () => void {
  return registerGatewaySessions(board, function* () {
    for (const downstream of downstreams()) yield sessionView(downstream);
  });
}
