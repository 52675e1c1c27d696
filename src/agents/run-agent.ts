/**
 * `runAgent`: the loop "model call, tool calls, tool results, again" over a Switchboard or an McpClient.
 * Each turn lists the host's tools (cached by the host), asks the model, runs the tool calls it asked for
 * at once, and appends both to the trace. It ends when the model answers without tool calls (`"end"`),
 * at `maxTurns` (`"max_turns"`, the trace so far) or when the signal aborts (`"aborted"`: the model
 * call and every MCP call in flight are cancelled, and the calls cut short are error results).
 */
import { ConfigError, McpError } from "../jsonrpc/errors.js";
import { isObject } from "../util/guards.js";
import { budgetOf, checkMaxResultChars } from "../switchboard/result-budget.js";
import { asPrincipal } from "./principal.js";
import { checkTrace } from "./convert/shared.js";
import { openRun, type DurableRunOptions } from "./durable-run.js";
import { within, type AgentEvents, type ModelCallStart } from "./events.js";
import { agentTools, type AgentCodeModeOptions } from "./code-mode.js";
import type { AgentHost } from "./host.js";
import type { AgentModel, ModelResponse } from "./model.js";
import { runToolUses, type AgentApprove } from "./tool-calls.js";
import { deferredTools, pinnedToolsOf, type DeferredToolOptions } from "./deferred-tools.js";
import { addUsage, messageText, type AgentResult, type AgentStep, type StopReason, type ToolUseBlock, type TraceMessage, type Usage } from "./trace.js";

export const DEFAULT_MAX_TURNS = 10;

export interface RunAgentOptions extends DeferredToolOptions, DurableRunOptions {
  /** `openAIChatModel(...)`, `openAIResponsesModel(...)`, `anthropicModel(...)`, or your own function. */
  model: AgentModel;
  /** Runs the tools: a Switchboard (qualified names) or an McpClient. */
  host: AgentHost;
  /** The conversation so far (a string is one user message). Not modified: the result has a new array. */
  messages: readonly TraceMessage[] | string;
  /** Model calls at most (default 10). The run stops after the turn that reaches it. */
  maxTurns?: number | undefined;
  /** Aborting it ends the run with `stopReason: "aborted"`, cancelling the model call and every tool call in flight. */
  signal?: AbortSignal | undefined;
  /** After each turn (model call and its tool calls), awaited; a throw ends the run with that error. */
  onStep?: ((step: AgentStep) => void | Promise<void>) | undefined;
  /** Asked before each tool call; a refusal is an error result the model reads. */
  approve?: AgentApprove | undefined;
  /** Start/end of each model call and tool execution, with timing; `around` wraps each. */
  events?: AgentEvents | undefined;
  /** Passed to every `callTool` (`timeoutMs`, `idempotent`, `onProgress`, ...); the run's signal is added. */
  callOptions?: Record<string, unknown> | undefined;
  /** The most of one tool result the model reads (switchboard/result-budget.ts); `callOptions.maxResultChars` wins, unset: the host's. */
  maxResultChars?: number | undefined;
  /** Whose credentials and lists the run uses (a Switchboard host only; src/agents/principal.ts). */
  principal?: string | undefined;
  /** Offer the model `run_code` (code mode, on a Switchboard host) instead of the board's tools; `pinned` ones stay beside it. */
  codeMode?: boolean | AgentCodeModeOptions | undefined;
}

/** The model call failed (not by the run's abort). Carries the trace up to the failure. */
export class ModelCallError extends McpError {
  constructor(
    message: string,
    readonly turn: number,
    readonly messages: TraceMessage[],
    readonly usage: Usage,
    readonly steps: AgentStep[],
    cause: unknown,
  ) {
    super(message, { cause, retryable: false });
  }
}

export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const { model: given, host, maxTurns } = checkOptions(options);
  const runBudget = checkMaxResultChars(options.maxResultChars, "maxResultChars");
  const { lister, callOptions } = asPrincipal(host, options.principal, options.callOptions);
  const run = openRun(options);
  const model = run?.model(given) ?? given;
  const messages: TraceMessage[] = run?.resumed
    ? run.messages
    : typeof options.messages === "string"
      ? [{ role: "user", content: [{ type: "text", text: options.messages }] }]
      : [...checkTrace(options.messages, "runAgent messages")];
  const { view, listTools, codeSearch } = agentTools(
    host,
    options.codeMode,
    callOptions,
    lister,
    pinnedToolsOf(options) !== undefined || (options.toolLoading === undefined && run?.toolLoading !== undefined),
  );
  const controller = new AbortController();
  const signal = controller.signal;
  const outer = options.signal;
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener("abort", onAbort, { once: true });
  const deferred = deferredTools(options, host, run?.toolLoading, codeSearch);
  run?.track(deferred);
  const steps: AgentStep[] = run?.steps ?? [];
  let usage: Usage = run?.usage ?? {};
  const finish = (stopReason: StopReason): AgentResult | Promise<AgentResult> => {
    const lastAssistant = [...messages].reverse().find((message) => message.role === "assistant");
    const result: AgentResult = { text: messageText(lastAssistant), messages, usage, turns: steps.length, steps, stopReason, partial: stopReason !== "end" };
    return run ? run.finish(result) : result;
  };
  try {
    await run?.begin(messages);
    for (let turn = steps.length + 1; turn <= maxTurns; turn++) {
      const tools = await untilAborted(listTools(), signal);
      if (tools.aborted) return finish("aborted");
      const offered = deferred ? deferred.offered(tools.value) : tools.value;
      const start: ModelCallStart = { turn, messages: [...messages], tools: offered, startedAt: Date.now() };
      const began = performance.now();
      options.events?.modelCallStart?.(start);
      let answer: { aborted: true } | { aborted: false; value: ModelResponse };
      try {
        answer = await untilAborted(
          within(options.events, { kind: "model", start }, () => model({ messages: start.messages, tools: offered, signal, turn })).then((response) =>
            checkResponse(response, turn),
          ),
          signal,
        );
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        options.events?.modelCallEnd?.({ ...start, durationMs: performance.now() - began, error: failure });
        if (signal.aborted) return finish("aborted");
        throw new ModelCallError(`The model call of turn ${turn} failed: ${failure.message}`, turn, messages, usage, steps, failure);
      }
      const modelDurationMs = performance.now() - began;
      if (answer.aborted) {
        options.events?.modelCallEnd?.({ ...start, durationMs: modelDurationMs, error: new Error("aborted") });
        return finish("aborted");
      }
      const response = answer.value;
      options.events?.modelCallEnd?.({ ...start, durationMs: modelDurationMs, response });
      messages.push(response.message);
      usage = addUsage(usage, response.usage);
      const uses = response.message.content.filter((block): block is ToolUseBlock => block.type === "tool_use");
      if (uses.length > 0 && (await run?.opened(turn, response, modelDurationMs, uses, tools.value, view))) return await finish("approval");
      const runTurn = (list: readonly ToolUseBlock[]) =>
        runToolUses(list, {
          host: view,
          tools: tools.value,
          turn,
          signal,
          approve: options.approve,
          events: options.events,
          callOptions,
          maxResultChars: (name) => budgetOf(options.callOptions, runBudget, host, name),
          gate: run?.gate,
        });
      const ran = uses.length === 0 ? undefined : deferred ? await deferred.run(uses, tools.value, runTurn) : await runTurn(uses);
      const toolResults: TraceMessage | undefined = ran === undefined ? undefined : { role: "tool", content: ran.results };
      if (toolResults !== undefined) messages.push(toolResults);
      const step: AgentStep = {
        turn,
        message: response.message,
        toolResults,
        toolCalls: ran?.records ?? [],
        usage: response.usage,
        modelStopReason: response.stopReason,
        modelDurationMs,
        ...(deferred ? { toolLoading: deferred.take() } : {}),
      };
      steps.push(step);
      run?.stepped(messages, usage, steps);
      await options.onStep?.(step);
      if (uses.length === 0) return finish("end");
      if (signal.aborted) return finish("aborted");
    }
    return finish("max_turns");
  } finally {
    view.dispose();
    outer?.removeEventListener("abort", onAbort);
    await run?.close();
  }
}

function checkOptions(options: RunAgentOptions): { model: AgentModel; host: AgentHost; maxTurns: number } {
  if (!isObject(options)) throw new ConfigError("runAgent needs an options object: { model, host, messages }");
  const { model, host } = options;
  if (typeof model !== "function") {
    throw new ConfigError("expected a function (request) => Promise<{ message, usage?, stopReason? }>, e.g. openAIChatModel(client, { model })", {
      field: "model",
    });
  }
  const hostObject = host as unknown as Record<string, unknown> | undefined;
  if (!isObject(hostObject) || typeof hostObject.listTools !== "function" || typeof hostObject.callTool !== "function") {
    throw new ConfigError("expected a Switchboard or an McpClient (anything with listTools() and callTool())", { field: "host" });
  }
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!(Number.isInteger(maxTurns) && maxTurns >= 1) && maxTurns !== Infinity) {
    throw new ConfigError(`expected a whole number >= 1 (or Infinity), found ${String(maxTurns)}`, { field: "maxTurns" });
  }
  return { model, host, maxTurns };
}

/** The model's answer, checked: an assistant message whose blocks the trace can hold. */
function checkResponse(response: ModelResponse, turn: number): ModelResponse {
  if (!isObject(response) || !isObject(response.message)) {
    throw new McpError(`the model returned ${response === null ? "null" : typeof response}, not { message, usage?, stopReason? }`);
  }
  if (response.message.role !== "assistant") throw new McpError(`the model's message has role ${JSON.stringify(response.message.role)}; expected "assistant"`);
  checkTrace([response.message], `model answer of turn ${turn}`);
  return response;
}

/**
 * The promise's value, or `{ aborted: true }` as soon as the signal aborts, whichever comes first; a
 * promise that ignores the signal and rejects later does not surface as an unhandled rejection.
 */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<{ aborted: true } | { aborted: false; value: T }> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.resolve({ aborted: true });
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      resolve({ aborted: true });
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve({ aborted: false, value });
      },
      (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
