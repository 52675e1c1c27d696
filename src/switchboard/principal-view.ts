/**
 * `board.forPrincipal(p)`: the board as one principal sees it, a host for the runners and runAgent.
 * Its tool list is the principal's own listing of each server (a list the server keeps private to a
 * user is never shown to another), filtered like the board's; with pinning, the listing is recorded
 * like the board's own (tool-pins.ts `admitSeen`), so a changed tool is held for every view. Its calls
 * carry the principal. A server whose own connection is down still lists for a principal with
 * credentials of its own.
 */
import type { CallToolResult, Tool } from "../client/types.js";
import type { BoardCallOptions } from "./board-options.js";
import { applyToolFilter, qualify } from "./namespacing.js";
import type { PrincipalClients } from "./principals.js";
import type { ServerRuntime } from "./server-runtime.js";
import type { ToolPins } from "./tool-pins.js";

export interface PrincipalView {
  readonly principal: string;
  listTools(): Promise<Tool[]>;
  callTool(name: string, args?: Record<string, unknown>, options?: BoardCallOptions): Promise<CallToolResult>;
  maxResultCharsFor(name: string): number | undefined;
}

interface Board {
  readonly separator: string;
  callTool(name: string, args?: Record<string, unknown>, options?: BoardCallOptions): Promise<CallToolResult>;
  maxResultCharsFor(name: string): number | undefined;
  emit(event: "error", payload: { server?: string; error: Error }): boolean;
}

export function principalView(
  principal: string,
  board: Board,
  runtimes: () => ServerRuntime[],
  principals: PrincipalClients,
  pins: ToolPins | undefined,
): PrincipalView {
  return {
    principal,
    async listTools() {
      const lists = await Promise.all(
        runtimes().map(async (runtime) => {
          const client = runtime.state === "up" ? runtime.client : undefined;
          if ((client === undefined && !principals.standalone(runtime)) || !principals.serves(runtime)) return [];
          try {
            const listed = await principals.listTools(runtime, client, principal);
            // Recorded in the pins like the board's own listing: a tool first seen here is pinned, a change quarantined.
            const admitted = pins === undefined ? listed : pins.admitSeen(runtime.name, listed);
            return applyToolFilter(admitted, runtime.entry.tools).map((tool) => ({ ...tool, name: qualify(runtime.name, tool.name, board.separator) }));
          } catch (error) {
            board.emit("error", { server: runtime.name, error: error as Error });
            return [];
          }
        }),
      );
      return lists.flat();
    },
    callTool: (name, args, options) => board.callTool(name, args, { ...options, principal }),
    maxResultCharsFor: (name) => board.maxResultCharsFor(name),
  };
}
