/**
 * The names the gateway shows for tools and prompts. By default they are the board's qualified names
 * ("math__add"), so two servers' tools never collide. A gateway in front of one server can instead be
 * transparent (`qualifyNames: false`): its clients see the server's own names, as if they spoke to it
 * directly, and the gateway qualifies each name on its way in. With more than one server that would let
 * two tools share a name, so it is refused then.
 */
import { ConfigError } from "../jsonrpc/errors.js";
import { qualify } from "../switchboard/namespacing.js";
import type { Switchboard } from "../switchboard/switchboard.js";

export interface GatewayNames {
  /** A board name ("math__add") as the client sees it. */
  outward(name: string): string;
  /** A name from the client as the board knows it. */
  inward(name: string): string;
}

const AS_IS: GatewayNames = { outward: (name) => name, inward: (name) => name };

export function gatewayNames(board: Switchboard, qualifyNames: boolean): GatewayNames {
  if (qualifyNames) return AS_IS;
  const servers = board.serverNames;
  if (servers.length !== 1)
    throw new ConfigError(`qualifyNames: false serves one server's own names, but the board has ${servers.length} servers (${servers.join(", ")})`, {
      field: "gateway.qualifyNames",
    });
  const prefix = qualify(servers[0]!, "", board.separator);
  return {
    outward: (name) => (name.startsWith(prefix) ? name.slice(prefix.length) : name),
    inward: (name) => prefix + name,
  };
}
