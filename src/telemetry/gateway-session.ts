/**
 * The gateway session a board call comes from, on its spans: the gateway runs each call in an
 * OpenTelemetry context that names the downstream session (its client, principal and id), and every
 * CLIENT span the call makes upstream (outgoing-span.ts) carries those attributes. The names follow
 * the package's own `mcp_switchboard.*` namespace (the conventions have none for a gateway's client);
 * `mcp.session.id` stays the upstream session's.
 *
 * Without telemetry nothing is loaded: `@opentelemetry/api` is used only when something loaded it.
 */
import type { Attributes } from "@opentelemetry/api";
import { loadedOtelApi } from "./otel-api.js";

export const GATEWAY_SESSION = Symbol.for("mcp-switchboard.telemetry.gateway-session");

export const ATTR_GATEWAY_SESSION_ID = "mcp_switchboard.gateway.session.id";
export const ATTR_GATEWAY_CLIENT_NAME = "mcp_switchboard.gateway.client.name";
export const ATTR_GATEWAY_CLIENT_VERSION = "mcp_switchboard.gateway.client.version";
export const ATTR_GATEWAY_PRINCIPAL = "mcp_switchboard.gateway.principal";

/** What a gateway knows of one downstream client. */
export interface GatewaySessionFacts {
  readonly id?: string | undefined;
  readonly principal: string | undefined;
  readonly clientInfo: { name?: unknown; version?: unknown } | undefined;
}

/** Made once per session (its facts do not change after initialize). */
const attributesOf = new WeakMap<GatewaySessionFacts, Attributes>();

function attributes(session: GatewaySessionFacts): Attributes {
  let made = attributesOf.get(session);
  if (made !== undefined) return made;
  made = {};
  if (session.id !== undefined) made[ATTR_GATEWAY_SESSION_ID] = session.id;
  if (typeof session.clientInfo?.name === "string") made[ATTR_GATEWAY_CLIENT_NAME] = session.clientInfo.name;
  if (typeof session.clientInfo?.version === "string") made[ATTR_GATEWAY_CLIENT_VERSION] = session.clientInfo.version;
  if (session.principal !== undefined) made[ATTR_GATEWAY_PRINCIPAL] = session.principal;
  attributesOf.set(session, made);
  return made;
}

/** Runs `call` so the spans it makes name `session`; just runs it when telemetry is off. */
export function inGatewaySession<T>(session: GatewaySessionFacts, call: () => T): T {
  const api = loadedOtelApi();
  if (api === undefined) return call();
  const context = api.context.active();
  return api.context.with(context.setValue(GATEWAY_SESSION, attributes(session)), call);
}
