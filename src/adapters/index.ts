export { toOpenAITools, runOpenAIToolCall, runOpenAIToolCalls } from "./openai.js";
export type { OpenAIChatTool, OpenAIResponsesTool, OpenAIChatToolCall, OpenAIResponsesFunctionCall, OpenAIToolMessage, OpenAIFunctionCallOutput } from "./openai.js";
export { toAnthropicTools, runAnthropicToolUse, runAnthropicToolUses } from "./anthropic.js";
export type { AnthropicTool, AnthropicToolUse, AnthropicToolResult, AnthropicResultBlock } from "./anthropic.js";
export { providerToolName } from "./names.js";
export { normaliseInputSchema } from "./schema.js";
export type { ToolHost, RunOptions } from "./tool-runner.js";
