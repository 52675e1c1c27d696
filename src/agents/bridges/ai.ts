/**
 * `mcp-switchboard/ai`: the host's tools as a Vercel AI SDK `ToolSet`, for `generateText`/`streamText`
 * and the SDK's agents. Names, schemas and results come from the adapters (the names OpenAI and
 * Anthropic accept, mapped back on each call; the non-strict JSON Schema form); every call goes through
 * the host, so supervision, fallbacks, hooks and approval still apply, and the AI SDK's abort signal
 * cancels it. This entry imports `ai` (a peer dependency); the package's main entry does not.
 *
 * @module mcp-switchboard/ai
 */
import { jsonSchema, tool, type Tool, type ToolSet } from "ai";
import type { CallToolResult } from "../../client/types.js";
import { compileInputSchema } from "../../adapters/schema.js";
import { partsText, resultParts, type MediaTarget } from "../../adapters/media.js";
import { runProviderCall, toolDescription, type ToolHost } from "../../adapters/tool-runner.js";
import type { NameOptions } from "../../adapters/names.js";
import { searchArguments, SEARCH_TOOL_NAME, SEARCH_TOOL_SCHEMA } from "../../adapters/deferred.js";
import { bridgePlan, type BridgeCodeModeOptions, type BridgeEntry } from "../bridge-plan.js";

export type { DeferredToolOptions } from "../deferred-tools.js";
export type { BridgeCodeModeOptions } from "../bridge-plan.js";

/** What a tool's `toModelOutput` returns (the AI SDK does not export the type under a name of its own). */
type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

export interface AISDKToolsOptions extends NameOptions, BridgeCodeModeOptions {
  /** Passed to every `callTool` (`timeoutMs`, `idempotent`, ...); the AI SDK's abort signal is added. */
  callOptions?: Record<string, unknown> | undefined;
  /**
   * Whose image limits decide which images go to the model as `image-data` (the others are described):
   * `"anthropic"` (default: the strictest of the common ones), `"openai"` or `"gemini"`. `false`
   * describes every image and file.
   */
  media?: MediaTarget | false | undefined;
  /** Answer with the result's `structuredContent` in place of its text blocks. */
  useStructuredContent?: boolean | undefined;
}

/**
 * The host's tools (a Switchboard or an McpClient) as AI SDK tools. Each `execute` resolves with the
 * MCP `CallToolResult` (a failed call as an `isError` result, so the model can react); `toModelOutput`
 * turns it into text, or text with images and files, or `error-text`.
 */
export async function toAISDKTools(host: ToolHost, options: AISDKToolsOptions = {}): Promise<ToolSet> {
  const plan = await bridgePlan(host, options);
  const set: ToolSet = {};
  for (const entry of plan.offered) set[entry.name] = aiTool(entry, options);
  const deferred = plan.deferred;
  if (deferred === undefined) return set;
  // Deferred: the set is live. The AI SDK reads it again at every step, so a tool a search finds is
  // added to it and offered from the next step on.
  set[SEARCH_TOOL_NAME] = tool({
    description: deferred.description,
    inputSchema: jsonSchema(SEARCH_TOOL_SCHEMA as unknown as Parameters<typeof jsonSchema>[0]),
    execute: async (input: unknown): Promise<string> => {
      const { query, limit } = searchArguments(input);
      const { found, text } = await deferred.search(query, limit);
      for (const entry of found) set[entry.name] ??= aiTool(entry, options);
      return text;
    },
  });
  // The SDK looks a call's tool up by name in this set: a tool called by its exact name without being
  // offered is found here, run, and offered from then on, as in runAgent.
  return new Proxy(set, {
    get: (target, key, receiver) => {
      if (typeof key === "string" && !Object.hasOwn(target, key)) {
        const entry = deferred.find(key);
        if (entry !== undefined) target[key] = aiTool(entry, options);
      }
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
}

function aiTool({ host, tool: mcpTool, name }: BridgeEntry, options: AISDKToolsOptions): Tool {
  const description = toolDescription(mcpTool);
  return tool({
    ...(description === undefined ? {} : { description }),
    inputSchema: jsonSchema(compileInputSchema(mcpTool.inputSchema, "openai").schema as Parameters<typeof jsonSchema>[0]),
    execute: async (input: unknown, { abortSignal }): Promise<CallToolResult> => {
      const callOptions = { ...options.callOptions, ...(abortSignal ? { signal: abortSignal } : {}) };
      return (await runProviderCall(host, name, input ?? {}, "openai", { prefix: options.prefix, callOptions })).result;
    },
    toModelOutput: ({ output }) => modelOutput(output as CallToolResult, options),
  });
}

function modelOutput(result: CallToolResult, options: AISDKToolsOptions): ToolResultOutput {
  const target = options.media === false ? "anthropic" : (options.media ?? "anthropic");
  const parts = resultParts(result, target, { media: options.media !== false, useStructuredContent: options.useStructuredContent });
  const describe = (part: { kind: string; mimeType?: string | undefined }, i: number) => `[${part.kind} ${i}: ${part.mimeType ?? ""}]`;
  if (result.isError === true) return { type: "error-text", value: partsText(parts, describe) };
  if (!parts.some((part) => part.kind === "image" || part.kind === "document")) return { type: "text", value: partsText(parts, describe) };
  return {
    type: "content",
    value: parts.map((part) => {
      switch (part.kind) {
        case "image":
          return { type: "image-data" as const, data: part.data, mediaType: part.mimeType };
        case "document":
          return { type: "file-data" as const, data: part.data, mediaType: part.mimeType, filename: part.name };
        default:
          return { type: "text" as const, text: part.text };
      }
    }),
  };
}
