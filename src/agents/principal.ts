/**
 * `runAgent({ principal })`: the run lists the tools that principal sees and makes every call with its
 * credentials (src/switchboard/principals.ts). Only a Switchboard knows principals.
 */
import { ConfigError } from "../jsonrpc/errors.js";
import { checkPrincipal } from "../switchboard/principals.js";
import { Switchboard } from "../switchboard/switchboard.js";
import type { ToolHost } from "../adapters/tool-runner.js";
import type { AgentHost } from "./host.js";

export function asPrincipal(
  host: AgentHost,
  principal: unknown,
  callOptions: Record<string, unknown> | undefined,
): { lister: ToolHost | AgentHost; callOptions: Record<string, unknown> | undefined } {
  if (principal === undefined) return { lister: host, callOptions };
  const checked = checkPrincipal(principal);
  if (!(host instanceof Switchboard))
    throw new ConfigError("a principal needs a Switchboard as the host (an McpClient has one set of credentials)", { field: "principal" });
  return { lister: host.forPrincipal(checked), callOptions: { ...callOptions, principal: checked } };
}
