/**
 * OpenAI function tools, both API shapes: Chat Completions (`{ type: "function", function: {...} }`,
 * answered with `role: "tool"` messages) and Responses (`{ type: "function", name, ... }`, answered with
 * `function_call_output` items).
 */
import type { Tool } from "../client/types.js";
import { resultText } from "./content.js";
import { providerToolName } from "./names.js";
import { normaliseInputSchema, type JsonSchema } from "./schema.js";
import { runProviderCall, type RunOptions, type ToolHost } from "./tool-runner.js";

export interface OpenAIChatTool {
  type: "function";
  function: { name: string; description?: string; parameters: JsonSchema };
}
export interface OpenAIResponsesTool {
  type: "function";
  name: string;
  description?: string;
  parameters: JsonSchema;
  strict: false;
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
export interface OpenAIFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

export function toOpenAITools(tools: readonly Tool[]): OpenAIChatTool[];
export function toOpenAITools(tools: readonly Tool[], options: { api: "chat" }): OpenAIChatTool[];
export function toOpenAITools(tools: readonly Tool[], options: { api: "responses" }): OpenAIResponsesTool[];
export function toOpenAITools(tools: readonly Tool[], options: { api?: "chat" | "responses" } = {}): OpenAIChatTool[] | OpenAIResponsesTool[] {
  if (options.api === "responses") {
    return tools.map((tool) => ({ type: "function" as const, name: providerToolName(tool.name), ...describe(tool), parameters: normaliseInputSchema(tool.inputSchema), strict: false as const }));
  }
  return tools.map((tool) => ({ type: "function" as const, function: { name: providerToolName(tool.name), ...describe(tool), parameters: normaliseInputSchema(tool.inputSchema) } }));
}

/**
 * Runs one tool call from the model on the right server and returns the message to send back. Failures
 * (unknown tool, arguments that are not JSON, a server that is down) come back as the tool's answer
 * ("Error: ..."), so the agent loop continues and the model can react.
 */
export function runOpenAIToolCall(host: ToolHost, call: OpenAIChatToolCall, options?: RunOptions): Promise<OpenAIToolMessage>;
export function runOpenAIToolCall(host: ToolHost, call: OpenAIResponsesFunctionCall, options?: RunOptions): Promise<OpenAIFunctionCallOutput>;
export async function runOpenAIToolCall(
  host: ToolHost,
  call: OpenAIChatToolCall | OpenAIResponsesFunctionCall,
  options?: RunOptions,
): Promise<OpenAIToolMessage | OpenAIFunctionCallOutput> {
  const chat = "function" in call;
  const name = chat ? call.function.name : call.name;
  const parsed = parseArguments(chat ? call.function.arguments : call.arguments);
  const outcome = parsed.ok
    ? await runProviderCall(host, name, parsed.value, options)
    : { result: { isError: true, content: [{ type: "text" as const, text: `Error: the arguments for ${name} are not valid JSON (${parsed.reason})` }] } };
  const text = resultText(outcome.result);
  return chat ? { role: "tool", tool_call_id: call.id, content: text } : { type: "function_call_output", call_id: call.call_id, output: text };
}

/** Runs every tool call of one model turn at once; the answers keep the calls' order. */
export function runOpenAIToolCalls(host: ToolHost, calls: readonly OpenAIChatToolCall[], options?: RunOptions): Promise<OpenAIToolMessage[]> {
  return Promise.all(calls.map((call) => runOpenAIToolCall(host, call, options)));
}

function describe(tool: Tool): { description?: string } {
  const description = tool.description ?? tool.title ?? tool.annotations?.title;
  return description === undefined ? {} : { description };
}

function parseArguments(text: string | undefined): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (text === undefined || text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
