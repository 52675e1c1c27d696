/**
 * What the run needs from its host beyond `listTools`/`callTool`: which server and tool a name means,
 * and, per call, the servers tried. A Switchboard says which server answered only through its
 * `fallback` events, which carry no call identity; each call runs in its own AsyncLocalStorage scope,
 * and the events are emitted synchronously inside the call's async chain (router -> board), so the
 * listener finds the call they belong to. Concurrent calls of the same tool stay apart.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { McpClient } from "../client/client.js";
import type { CallToolResult } from "../client/types.js";
import { McpError } from "../jsonrpc/errors.js";
import { missingToolError, type ToolHost } from "../adapters/tool-runner.js";
import type { FallbackEvent } from "../switchboard/events.js";
import { parseQualified } from "../switchboard/namespacing.js";
import { Switchboard } from "../switchboard/switchboard.js";
import { asError } from "../util/guards.js";
import type { CodeRunRecord, ToolCallAttempt } from "./trace.js";

/** What runs the tools: a Switchboard (qualified names), an McpClient, or anything with the two methods. */
export type AgentHost = Switchboard | McpClient | ToolHost;

export interface HostCallOutcome {
  result?: CallToolResult;
  error?: Error;
  /** The server that answered (or failed last), when the host says. */
  server: string | undefined;
  attempts: ToolCallAttempt[];
  /** Code mode's `run_code`: the code, its calls and its output (src/agents/code-mode.ts). */
  code?: CodeRunRecord;
}

export interface HostView {
  /** The primary server and the tool's name there. */
  locate(name: string): { server: string | undefined; tool: string | undefined };
  call(name: string, args: Record<string, unknown>, options: Record<string, unknown>): Promise<HostCallOutcome>;
  /** Why a name the model was not offered cannot be called (the runners' words: adapters/tool-runner.ts, missingToolError). */
  missing?(name: string, offered: Iterable<string>): Error;
  /** Stops listening to the host. */
  dispose(): void;
}

interface CallScope {
  owner: object;
  fallbacks: FallbackEvent[];
}

const scopes = new AsyncLocalStorage<CallScope>();

export function viewOf(host: AgentHost): HostView {
  const view = baseView(host);
  view.missing = (name, offered) => missingToolError(host, name, offered);
  return view;
}

function baseView(host: AgentHost): HostView {
  if (host instanceof Switchboard) return boardView(host);
  if (host instanceof McpClient) {
    const server = () => host.serverInfo?.name;
    return {
      locate: (name) => ({ server: server(), tool: name }),
      call: async (name, args, options) => {
        const attempt = { server: server() ?? "(server)" };
        try {
          return { result: await host.callTool(name, args, options), server: server(), attempts: [attempt] };
        } catch (error) {
          return { error: asError(error), server: server(), attempts: [{ ...attempt, error: asError(error).message }] };
        }
      },
      dispose: () => undefined,
    };
  }
  return {
    locate: () => ({ server: undefined, tool: undefined }),
    call: async (name, args, options) => {
      try {
        return { result: await host.callTool(name, args, options), server: undefined, attempts: [] };
      } catch (error) {
        return { error: asError(error), server: undefined, attempts: [] };
      }
    },
    dispose: () => undefined,
  };
}

function boardView(board: Switchboard): HostView {
  const owner = {};
  const servers = new Set(board.serverNames);
  const onFallback = (event: FallbackEvent) => {
    const scope = scopes.getStore();
    if (scope?.owner === owner) scope.fallbacks.push(event);
  };
  board.on("fallback", onFallback);
  const locate = (name: string) => {
    const parsed = parseQualified(name, board.separator, servers);
    return { server: parsed?.server, tool: parsed?.tool };
  };
  return {
    locate,
    call: (name, args, options) => {
      const scope: CallScope = { owner, fallbacks: [] };
      return scopes.run(scope, async () => {
        const primary = locate(name).server;
        const attempts = (): ToolCallAttempt[] => scope.fallbacks.map((event) => ({ server: event.from, reason: event.reason, error: event.error.message }));
        const last = () => scope.fallbacks[scope.fallbacks.length - 1]?.to ?? primary;
        try {
          const result = await board.callTool(name, args, options);
          const server = last();
          return { result, server, attempts: server === undefined ? attempts() : [...attempts(), { server }] };
        } catch (error) {
          const failure = asError(error);
          const server = (failure instanceof McpError ? failure.server : undefined) ?? last();
          const tried = attempts();
          // The router names the server it failed on; it is the last attempt unless it was skipped already.
          if (server !== undefined && tried[tried.length - 1]?.server !== server) tried.push({ server, error: failure.message });
          return { error: failure, server, attempts: tried };
        }
      });
    },
    dispose: () => board.off("fallback", onFallback),
  };
}
