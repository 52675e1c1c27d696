/**
 * One routed call of the Switchboard (tools/call, resources/read, prompts/get): the before hook, the
 * approval, the supervisor's routing with fallbacks (router.ts), then the after or error hook. Kept apart
 * from switchboard.ts so the board's class stays a list of its public methods.
 */
import type { McpClient } from "../client/client.js";
import type { Tool } from "../client/types.js";
import type { RequestOptions } from "../connection/request-options.js";
import { applyAfter, applyBefore, fallbackDecision, refusalOf, refusedResult, runHook, type CallContext, type SwitchboardHooks } from "./hooks.js";
import type { BoardCallOptions } from "./board-options.js";
import type { PrincipalClients } from "./principals.js";
import { route, type IdempotenceLookup, type WhileRestarting } from "./router.js";
import type { ServerRuntime } from "./server-runtime.js";

/** What a routed call needs of its board; read at call time, since the board fills its fields in its constructor. */
export interface RoutingContext {
  hooks(): SwitchboardHooks;
  whileRestarting(): WhileRestarting;
  principals(): PrincipalClients;
  runtimeNamed(name: string): ServerRuntime | undefined;
  toolFor(runtime: ServerRuntime, toolName: string, options: RequestOptions): Promise<Tool | undefined>;
  emit(type: "error" | "fallback", event: unknown): void;
}

export async function routedCall<T>(
  board: RoutingContext,
  method: string,
  name: string,
  args: unknown,
  runtime: ServerRuntime,
  idempotent: boolean | IdempotenceLookup,
  options: RequestOptions,
  call: (client: McpClient, server: ServerRuntime) => Promise<T>,
  toolName?: string,
): Promise<T> {
  const hooks = board.hooks();
  const context: CallContext = { method, name, server: undefined, args, startedAt: Date.now(), attempts: [] };
  const report = (error: Error) => board.emit("error", { error: new Error(`A Switchboard hook threw: ${error.message}`, { cause: error }) });
  // A before hook may rewrite the arguments: the call is then rebuilt from them.
  if (hooks.before && (await applyBefore(hooks.before.bind(hooks), context, report)) && toolName)
    call = board.principals().sender(toolName, context.args as Record<string, unknown>, options) as unknown as typeof call;
  const refusal =
    hooks.approve && toolName
      ? await refusalOf(hooks.approve.bind(hooks), {
          server: runtime.name,
          tool: toolName,
          name,
          args: context.args as Record<string, unknown>,
          annotations: (await board.toolFor(runtime, toolName, options))?.annotations,
        })
      : undefined;
  if (refusal !== undefined) return refusedResult(refusal) as T;
  const principal = (options as BoardCallOptions).principal;
  // A beforeFallback hook may give the fallback other arguments: the call is then rebuilt from them.
  let current = call;
  const beforeFallback = hooks.beforeFallback?.bind(hooks);
  const askBeforeFallback =
    beforeFallback === undefined
      ? undefined
      : async (failed: string, fallback: string, reason: string, error: Error): Promise<boolean> => {
          const request = { method, name, tool: toolName, args: context.args, principal, failed, error, reason, fallback, attempts: [...context.attempts] };
          const verdict = await fallbackDecision(beforeFallback, request, report);
          if (verdict.go && verdict.args !== undefined && toolName) {
            context.args = verdict.args;
            current = board.principals().sender(toolName, verdict.args, options) as unknown as typeof call;
          }
          return verdict.go;
        };
  try {
    const result = await route(runtime, (n) => board.runtimeNamed(n), askBeforeFallback === undefined ? call : (client, server) => current(client, server), {
      name,
      idempotent,
      timeoutMs: options.timeoutMs ?? runtime.entry.requestTimeoutMs,
      signal: options.signal,
      whileRestarting: board.whileRestarting(),
      attempts: context.attempts,
      standalone: principal === undefined ? undefined : board.principals().standalone,
      beforeFallback: askBeforeFallback,
      onFallback: (from, to, reason, error) => {
        board.emit("fallback", { name, from, to, reason, error });
        (options as BoardCallOptions).onFallback?.(from, to, reason);
      },
    });
    context.server = context.attempts[context.attempts.length - 1];
    return hooks.after === undefined ? result : await applyAfter(hooks.after.bind(hooks), context, result, report);
  } catch (error) {
    context.server = context.attempts[context.attempts.length - 1];
    runHook(report, hooks.error && (() => hooks.error!(context, error as Error)));
    throw error;
  }
}
