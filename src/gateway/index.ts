/**
 * `mcp-switchboard/gateway`: the board served as one MCP server. `serveBoard(board, options)` listens
 * on Streamable HTTP (127.0.0.1, a free port and "/mcp" unless told otherwise) and answers any MCP
 * client with the board's tools, resources, templates, prompts and completions; every call goes
 * through the board. Closing the gateway leaves the board running: it is the caller's to stop.
 *
 * @module mcp-switchboard/gateway
 */
import type { GatewaySessionShare } from "../fleet/gateway-sessions.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { VERSION } from "../util/version.js";
import { forwardBoardEvents } from "./board-events.js";
import { GatewayHandler } from "./handler.js";
import { GatewayServer } from "./http-server.js";
import { gatewaySettings, type ServeBoardOptions } from "./options.js";
import { relayRounds } from "./replica-rounds.js";
import { ReplicaSessions } from "./replicas.js";
import { showSessions } from "./session-view.js";

export type { GatewayAuth } from "./auth.js";
export type { ServeBoardOptions } from "./options.js";
export { FALLBACK_META_KEY } from "./handler.js";
export { PASS_THROUGH_CAPABILITIES } from "./client-requests.js";

/** A running gateway, as `serveBoard()` returns it. */
export interface Gateway {
  /** The MCP endpoint, e.g. "http://127.0.0.1:41234/mcp". */
  readonly url: string;
  /** The 2025-era sessions held now. */
  readonly sessions: number;
  /** Stops listening and ends every session (their calls are cancelled); the board keeps running. */
  close(): Promise<void>;
}

/** Serves `board` as one MCP server; resolves once listening (a port in use is a ConfigError naming it). */
export async function serveBoard(board: Switchboard, options: ServeBoardOptions = {}): Promise<Gateway> {
  const settings = gatewaySettings(options, VERSION);
  // With a fleet, replicas share their sessions through it (replicas.ts); without one they stay in memory.
  const share = (board.fleet as { gatewaySessions?(): GatewaySessionShare } | undefined)?.gatewaySessions?.();
  const replicas = share === undefined ? undefined : new ReplicaSessions(share, settings.sessionIdleMs, settings.maxSessions, settings.maxUnreadBytes);
  const handler = new GatewayHandler(board, settings);
  if (share !== undefined) relayRounds(share, handler.inputRounds);
  const server = new GatewayServer(handler, settings, replicas);
  await server.listen();
  const stopEvents =
    replicas === undefined
      ? forwardBoardEvents(board, () => server.downstreams())
      : both(
          replicas.forward(board),
          forwardBoardEvents(board, () => server.listens()),
        );
  const hideSessions = showSessions(board, () => server.sessions.all());
  let closed: Promise<void> | undefined;
  return {
    url: server.url,
    get sessions() {
      return server.sessions.size;
    },
    close: () => {
      stopEvents();
      hideSessions();
      return (closed ??= server.close());
    },
  };
}

/** Stops two forwarders as one. */
function both(first: () => void, second: () => void): () => void {
  return () => {
    first();
    second();
  };
}
