export { toOpenAITools, runOpenAIToolCall, runOpenAIToolCalls, runOpenAIToolSearch } from "./openai.js";
export type { OpenAINamespaceTool, OpenAIToolSearchTool, OpenAIToolSearchCall, OpenAIToolSearchOutput } from "./openai-deferred.js";
export { SEARCH_TOOL_NAME, type DeferLoading } from "./deferred.js";
export type {
  OpenAIToolsOptions,
  OpenAIRunOptions,
  OpenAIChatTool,
  OpenAIResponsesTool,
  OpenAIChatToolCall,
  OpenAIResponsesFunctionCall,
  OpenAIToolMessage,
  OpenAIUserMessage,
  OpenAIFunctionCallOutput,
  OpenAIOutputPart,
} from "./openai.js";
export { toAnthropicTools, runAnthropicToolUse, runAnthropicToolUses } from "./anthropic.js";
export type {
  AnthropicToolsOptions,
  AnthropicRunOptions,
  AnthropicCacheControl,
  AnthropicTool,
  AnthropicToolUse,
  AnthropicToolResult,
  AnthropicResultBlock,
  AnthropicToolSearchTool,
} from "./anthropic.js";
export { toGeminiTools, runGeminiFunctionCall, runGeminiFunctionCalls } from "./gemini.js";
export type { GeminiFunctionDeclaration, GeminiFunctionCall, GeminiFunctionResponsePart, GeminiRunOptions } from "./gemini.js";
export { providerToolName, providerNames, fitsNameRule, type NameRule, type NameOptions, type NameMap } from "./names.js";
export { normaliseInputSchema, compileInputSchema, decodeArguments, OPENAI_STRICT_LIMITS } from "./schema.js";
export type { JsonSchema, CompiledSchema, SchemaTarget } from "./schema.js";
export { MEDIA_LIMITS, resultParts, type ResultPart, type PartOptions, type MediaTarget } from "./media.js";
export type { ToolHost, RunOptions } from "./tool-runner.js";
