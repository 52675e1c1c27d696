/**
 * Models for `runAgent` over the official SDK clients: `openAIChatModel(new OpenAI(), params)`,
 * `openAIResponsesModel(new OpenAI(), params)`, `anthropicModel(new Anthropic(), params)`. The clients
 * are typed by the one method used, so this package needs neither SDK at run time; any object with that
 * method (a proxy, a compatible SDK) works. Each call converts the trace and the host's tools with the
 * adapters and passes the run's abort signal to the SDK.
 */
import { toAnthropicTools, type AnthropicToolsOptions } from "../adapters/anthropic.js";
import { toOpenAITools } from "../adapters/openai.js";
import type { AgentModel, SdkRequestOptions } from "./model.js";
import { fromAnthropicMessage, toAnthropicMessages, type AnthropicConvertOptions } from "./convert/anthropic.js";
import { fromOpenAIChatCompletion, toOpenAIChatMessages, type OpenAIChatConvertOptions } from "./convert/openai-chat.js";
import { fromOpenAIResponse, toOpenAIResponsesInput, type OpenAIResponsesConvertOptions } from "./convert/openai-responses.js";
import { TraceConversionError } from "./convert/shared.js";

/** Anything with `chat.completions.create(body, { signal })`: the `openai` client. */
export interface OpenAIChatClient {
  chat: { completions: { create(body: never, options?: SdkRequestOptions): PromiseLike<unknown> } };
}
/** Anything with `responses.create(body, { signal })`: the `openai` client. */
export interface OpenAIResponsesClient {
  responses: { create(body: never, options?: SdkRequestOptions): PromiseLike<unknown> };
}
/** Anything with `messages.create(body, { signal })`: the `@anthropic-ai/sdk` client. */
export interface AnthropicClient {
  messages: { create(body: never, options?: SdkRequestOptions): PromiseLike<unknown> };
}

/**
 * The request body without `messages`/`input` and `tools` (the model adds those): `model` and anything
 * else the API takes (`temperature`, `tool_choice`, `parallel_tool_calls`, `reasoning`, ...).
 */
export type ModelParams = { model: string } & Record<string, unknown>;

export interface OpenAIModelOptions {
  /** Strict mode for the tools (see `toOpenAITools`); default false. */
  strict?: boolean | "auto" | undefined;
}

/** A Chat Completions model. `options`: the tools' strict mode and how tool results are converted (`chatMedia`, ...). */
export function openAIChatModel(client: OpenAIChatClient, params: ModelParams, options: OpenAIModelOptions & OpenAIChatConvertOptions = {}): AgentModel {
  checkParams("openAIChatModel", client, params, (c) => typeof (c as OpenAIChatClient).chat?.completions?.create === "function", "chat.completions.create");
  return async ({ messages, tools, signal }) => {
    const body = {
      ...params,
      messages: toOpenAIChatMessages(messages, tools, options),
      ...(tools.length > 0 ? { tools: toOpenAITools(tools, { strict: options.strict ?? false, prefix: options.prefix }) } : {}),
    };
    const completion = await client.chat.completions.create(body as never, { signal });
    return fromOpenAIChatCompletion(completion, tools, options);
  };
}

/** A Responses API model. The whole trace is sent each turn (no `previous_response_id`). */
export function openAIResponsesModel(
  client: OpenAIResponsesClient,
  params: ModelParams,
  options: OpenAIModelOptions & OpenAIResponsesConvertOptions = {},
): AgentModel {
  checkParams("openAIResponsesModel", client, params, (c) => typeof (c as OpenAIResponsesClient).responses?.create === "function", "responses.create");
  return async ({ messages, tools, signal }) => {
    const body = {
      ...params,
      input: toOpenAIResponsesInput(messages, tools, options),
      ...(tools.length > 0 ? { tools: toOpenAITools(tools, { api: "responses", strict: options.strict ?? false, prefix: options.prefix }) } : {}),
    };
    const response = await client.responses.create(body as never, { signal });
    return fromOpenAIResponse(response, tools, options);
  };
}

/** Anthropic's `max_tokens` is required; this is used when `params` gives none. */
export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

/**
 * An Anthropic Messages model. System messages of the trace become `system` (a `params.system` is used
 * when the trace has none); `max_tokens` defaults to 4096.
 */
export function anthropicModel(
  client: AnthropicClient,
  params: ModelParams,
  options: Pick<AnthropicToolsOptions, "cacheControl"> & AnthropicConvertOptions = {},
): AgentModel {
  checkParams("anthropicModel", client, params, (c) => typeof (c as AnthropicClient).messages?.create === "function", "messages.create");
  return async ({ messages, tools, signal }) => {
    const converted = toAnthropicMessages(messages, tools, options);
    const system = converted.system ?? params.system;
    const body = {
      max_tokens: DEFAULT_ANTHROPIC_MAX_TOKENS,
      ...params,
      ...(system !== undefined ? { system } : {}),
      messages: converted.messages,
      ...(tools.length > 0 ? { tools: toAnthropicTools(tools, { cacheControl: options.cacheControl, prefix: options.prefix }) } : {}),
    };
    const message = await client.messages.create(body as never, { signal });
    return fromAnthropicMessage(message, tools, options);
  };
}

function checkParams(factory: string, client: unknown, params: unknown, hasMethod: (client: object) => boolean, method: string): void {
  if (typeof client !== "object" || client === null || !hasMethod(client)) {
    throw new TraceConversionError(`${factory}: the client has no ${method}() method; pass the official SDK client (or an object with that method)`);
  }
  if (typeof params !== "object" || params === null || typeof (params as { model?: unknown }).model !== "string") {
    throw new TraceConversionError(`${factory}: params need a model name ({ model: "..." })`);
  }
}
