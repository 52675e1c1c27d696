/**
 * OpenAI function tools, both API shapes: Chat Completions (`{ type: "function", function: {...} }`,
 * answered with `role: "tool"` messages) and Responses (`{ type: "function", name, ... }`, answered with
 * `function_call_output` items that carry text, images and files).
 */
import type { Tool } from "../client/types.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { compileInputSchema, type JsonSchema } from "./schema.js";
import { partsText, resultParts, type PartOptions, type ResultPart } from "./media.js";
import type { NameOptions } from "./names.js";
import { namesOf, oncePerList, orderedTools, parseArguments, runProviderCall, toolDescription, type RunOptions, type ToolHost } from "./tool-runner.js";
import { pinnedOf, type DeferLoading } from "./deferred.js";
import { strictForAuto } from "./schema/shape.js";
import {
  deferOptions,
  deferResponsesTools,
  toolSearchOutput,
  type OpenAINamespaceTool,
  type OpenAIToolSearchCall,
  type OpenAIToolSearchOutput,
  type OpenAIToolSearchTool,
} from "./openai-deferred.js";

export interface OpenAIToolsOptions extends NameOptions {
  /** `"chat"` (default): Chat Completions tools; `"responses"`: Responses API tools. */
  api?: "chat" | "responses" | undefined;
  /**
   * `false` (default): no strict mode. `true`: strict wherever OpenAI's limits allow, even where the
   * strict form narrows what the tool accepts. `"auto"`: strict only where the conversion is exact.
   */
  strict?: boolean | "auto" | undefined;
  /**
   * Responses only: tool search. Every tool not pinned gets `defer_loading: true` (grouped per server
   * into `namespace` tools), and a `tool_search` tool is added. Chat Completions has no native
   * deferral: use `runAgent({ toolLoading: "deferred" })` there.
   */
  deferLoading?: DeferLoading | undefined;
  /** With `deferLoading`: `"server"` (default) OpenAI searches; `"client"` we do (`runOpenAIToolSearch`). */
  toolSearch?: "server" | "client" | undefined;
  /** With `deferLoading`: one `namespace` tool per server (default true). */
  namespaces?: boolean | undefined;
  /** Between server and tool in the tools' names, for namespaces (default "__", the Switchboard's). */
  separator?: string | undefined;
}

export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description?: string; parameters: JsonSchema; strict?: boolean };
}
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description?: string;
  parameters: JsonSchema;
  strict: boolean;
  defer_loading?: true;
}

/** A tool call as the Chat Completions API returns it. */
export interface OpenAIChatToolCall {
  id: string;
  type?: "function";
  function: { name: string; arguments: string };
}
/** A `function_call` output item of the Responses API. */
export interface OpenAIResponsesFunctionCall {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
}
export interface OpenAIToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}
/** Images and files from a turn's tool results, for Chat Completions (whose tool messages take text only). */
export interface OpenAIUserMessage {
  role: "user";
  content: Array<
    | { type: "text"; text: string }
    | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
    | { type: "file"; file: { file_data: string; filename: string } }
  >;
}
export type OpenAIOutputPart =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail?: "auto" | "low" | "high" }
  | { type: "input_file"; file_data: string; filename: string };
export interface OpenAIFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  /** Text alone when the result is text; otherwise text, image and file parts in order. */
  output: string | OpenAIOutputPart[];
}

export interface OpenAIRunOptions extends RunOptions, Pick<PartOptions, "media"> {
  /** `detail` of images sent to the model (default: not set, the API's "auto"). */
  imageDetail?: "auto" | "low" | "high" | undefined;
  /**
   * Chat Completions only: `"describe"` (default) says in the tool message what images and files there
   * were; `"user-message"` also sends them in one user message after the turn's tool messages
   * (`runOpenAIToolCalls` adds it).
   */
  chatMedia?: "describe" | "user-message" | undefined;
}

export function toOpenAITools(tools: readonly Tool[], options?: OpenAIToolsOptions & { api?: "chat" }): OpenAIChatTool[];
export function toOpenAITools(
  tools: readonly Tool[],
  options: OpenAIToolsOptions & { api: "responses"; deferLoading?: false | undefined },
): OpenAIResponsesTool[];
export function toOpenAITools(
  tools: readonly Tool[],
  options: OpenAIToolsOptions & { api: "responses" },
): Array<OpenAIResponsesTool | OpenAINamespaceTool | OpenAIToolSearchTool>;
export function toOpenAITools(
  tools: readonly Tool[],
  options: OpenAIToolsOptions = {},
): OpenAIChatTool[] | Array<OpenAIResponsesTool | OpenAINamespaceTool | OpenAIToolSearchTool> {
  const api = options.api ?? "chat";
  const pinned = pinnedOf(options.deferLoading);
  if (pinned !== undefined) {
    if (api !== "responses") {
      throw new ConfigError('Chat Completions has no native tool deferral: use api: "responses", or runAgent({ toolLoading: "deferred" })', {
        field: "deferLoading",
      });
    }
    const eager = toOpenAITools(tools, { ...options, api: "responses", deferLoading: false });
    return deferResponsesTools(eager, namesOf(tools, "openai", options).toMcp, deferOptions(options, pinned));
  }
  const strict = options.strict ?? false;
  const key = `openai:${api}:${String(strict)}:${options.prefix ?? ""}`;
  const converted = oncePerList(tools, key, () =>
    orderedTools(tools, "openai", options).map(({ tool, name }) => {
      const { parameters, strict: isStrict } = openAIParameters(tool, strict);
      const description = toolDescription(tool);
      if (api === "responses") return { type: "function" as const, name, ...(description === undefined ? {} : { description }), parameters, strict: isStrict };
      return {
        type: "function" as const,
        function: { name, ...(description === undefined ? {} : { description }), parameters, ...(isStrict ? { strict: true } : {}) },
      };
    }),
  );
  // A new array each time (callers may add their own tools); the tool objects are shared.
  return converted.slice() as OpenAIChatTool[] | OpenAIResponsesTool[];
}

/**
 * The parameters for one tool and whether they are strict. A strict schema over OpenAI's size limits
 * would fail the whole request, so it is sent non-strict even under `strict: true`.
 */
function openAIParameters(tool: Tool, strict: boolean | "auto"): { parameters: JsonSchema; strict: boolean } {
  if (strict !== false) {
    const compiled = compileInputSchema(tool.inputSchema, "openai-strict");
    // "auto": exact, or losses that name no value the model could mean (schema/shape.ts).
    if (compiled.withinLimits && (strict === true || strictForAuto(compiled.losses))) {
      return { parameters: compiled.schema!, strict: true };
    }
  }
  return { parameters: compileInputSchema(tool.inputSchema, "openai").schema!, strict: false };
}

/**
 * Answers a client-executed `tool_search_call` (from `toOpenAITools(tools, { api: "responses",
 * deferLoading, toolSearch: "client" })`): the host's best matches, as the Responses tools the model
 * can call from then on. Pass the same name and strict options as to `toOpenAITools`.
 */
export function runOpenAIToolSearch(host: ToolHost, call: OpenAIToolSearchCall, options: OpenAIToolsOptions = {}): Promise<OpenAIToolSearchOutput> {
  return toolSearchOutput(host, call, (tools) => toOpenAITools(tools, { ...options, api: "responses", deferLoading: false }), options);
}

/**
 * Runs one tool call from the model on the right server and returns the message to send back. Failures
 * (unknown tool, arguments that are not JSON, a server that is down) come back as the tool's answer
 * ("Error: ..."), so the agent loop continues and the model can react.
 */
export function runOpenAIToolCall(host: ToolHost, call: OpenAIChatToolCall, options?: OpenAIRunOptions): Promise<OpenAIToolMessage>;
export function runOpenAIToolCall(host: ToolHost, call: OpenAIResponsesFunctionCall, options?: OpenAIRunOptions): Promise<OpenAIFunctionCallOutput>;
export async function runOpenAIToolCall(
  host: ToolHost,
  call: OpenAIChatToolCall | OpenAIResponsesFunctionCall,
  options: OpenAIRunOptions = {},
): Promise<OpenAIToolMessage | OpenAIFunctionCallOutput> {
  const ran = await runOne(host, call, options);
  if ("function" in call) return { role: "tool", tool_call_id: call.id, content: chatText(ran.parts, options) };
  return { type: "function_call_output", call_id: call.call_id, output: responsesOutput(ran.parts, options) };
}

/** Runs every tool call of one model turn at once; the answers keep the calls' order. */
export function runOpenAIToolCalls(
  host: ToolHost,
  calls: readonly OpenAIChatToolCall[],
  options?: OpenAIRunOptions & { chatMedia?: "describe" },
): Promise<OpenAIToolMessage[]>;
export function runOpenAIToolCalls(
  host: ToolHost,
  calls: readonly OpenAIChatToolCall[],
  options: OpenAIRunOptions & { chatMedia: "user-message" },
): Promise<Array<OpenAIToolMessage | OpenAIUserMessage>>;
export function runOpenAIToolCalls(
  host: ToolHost,
  calls: readonly OpenAIResponsesFunctionCall[],
  options?: OpenAIRunOptions,
): Promise<OpenAIFunctionCallOutput[]>;
export async function runOpenAIToolCalls(
  host: ToolHost,
  calls: readonly (OpenAIChatToolCall | OpenAIResponsesFunctionCall)[],
  options: OpenAIRunOptions = {},
): Promise<Array<OpenAIToolMessage | OpenAIUserMessage | OpenAIFunctionCallOutput>> {
  const ran = await Promise.all(calls.map((call) => runOne(host, call, options)));
  const answers: Array<OpenAIToolMessage | OpenAIUserMessage | OpenAIFunctionCallOutput> = ran.map(({ call, parts }) =>
    "function" in call
      ? { role: "tool" as const, tool_call_id: call.id, content: chatText(parts, options) }
      : { type: "function_call_output" as const, call_id: call.call_id, output: responsesOutput(parts, options) },
  );
  if (options.chatMedia === "user-message") {
    const media = chatMediaMessage(
      ran.flatMap(({ call, parts }) => ("function" in call ? [{ id: call.id, name: call.function.name, parts }] : [])),
      options,
    );
    if (media !== undefined) answers.push(media);
  }
  return answers;
}

/**
 * The one user message that carries a Chat Completions turn's images and files (its tool messages take
 * text only), or undefined when the results had none.
 */
export function chatMediaMessage(
  results: ReadonlyArray<{ id: string; name: string; parts: readonly ResultPart[] }>,
  options: OpenAIRunOptions,
): OpenAIUserMessage | undefined {
  const media = results.flatMap(({ id, name, parts }) => parts.filter(isMedia).map((part) => ({ from: `${id} (${name})`, part })));
  if (media.length === 0) return undefined;
  const from = [...new Set(media.map((entry) => entry.from))].join(", ");
  return {
    role: "user",
    content: [
      { type: "text", text: `Images and files returned by the tool calls ${from}, in order:` },
      ...media.map(({ part }) => chatMediaPart(part, options)),
    ],
  };
}

async function runOne(
  host: ToolHost,
  call: OpenAIChatToolCall | OpenAIResponsesFunctionCall,
  options: OpenAIRunOptions,
): Promise<{ call: OpenAIChatToolCall | OpenAIResponsesFunctionCall; parts: ResultPart[] }> {
  const chat = "function" in call;
  const name = chat ? call.function.name : call.name;
  const parsed = parseArguments(chat ? call.function.arguments : call.arguments);
  const outcome = parsed.ok
    ? await runProviderCall(host, name, parsed.value, "openai", options)
    : { result: { isError: true, content: [{ type: "text" as const, text: `Error: the arguments for ${name} are not valid JSON (${parsed.reason})` }] } };
  return { call, parts: resultParts(outcome.result, "openai", options) };
}

type MediaPart = Extract<ResultPart, { kind: "image" | "document" }>;
const isMedia = (part: ResultPart): part is MediaPart => part.kind === "image" || part.kind === "document";
const dataUrl = (part: MediaPart) => `data:${part.mimeType};base64,${part.data}`;

export function chatText(parts: readonly ResultPart[], options: OpenAIRunOptions): string {
  const where =
    options.chatMedia === "user-message" ? "sent in the user message after the tool results" : "not sent: Chat Completions tool messages take text only";
  return partsText(parts, (part, i) => `[${part.kind} ${i}: ${(part as MediaPart).mimeType}; ${where}]`);
}

function chatMediaPart(part: MediaPart, options: OpenAIRunOptions): OpenAIUserMessage["content"][number] {
  if (part.kind === "image") return { type: "image_url", image_url: { url: dataUrl(part), ...(options.imageDetail ? { detail: options.imageDetail } : {}) } };
  return { type: "file", file: { file_data: dataUrl(part), filename: part.name } };
}

export function responsesOutput(parts: readonly ResultPart[], options: OpenAIRunOptions): string | OpenAIOutputPart[] {
  if (!parts.some(isMedia)) return parts.map((part) => (part as { text: string }).text).join("\n");
  return parts.map((part): OpenAIOutputPart => {
    if (part.kind === "image") return { type: "input_image", image_url: dataUrl(part), ...(options.imageDetail ? { detail: options.imageDetail } : {}) };
    if (part.kind === "document") return { type: "input_file", file_data: dataUrl(part), filename: part.name };
    return { type: "input_text", text: part.text };
  });
}
