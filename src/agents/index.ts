export { runAgent, ModelCallError, DEFAULT_MAX_TURNS, type RunAgentOptions } from "./run-agent.js";
export { resumeAgent, type ResumeAgentOptions } from "./resume-agent.js";
export { DEFAULT_LEASE_MS, type DurableRunOptions } from "./durable-run.js";
export {
  CheckpointError,
  type Checkpointer,
  type SaveOptions,
  type StoredRun,
  type CheckpointErrorReason,
  type CheckpointErrorOptions,
} from "./checkpointer.js";
export { IDEMPOTENCY_KEY_META, RUN_STATE_VERSION, RUN_STATE_KIND, checkRunState } from "./run-state.js";
export type { RunState, RunStatus, OpenTurn, SentCall, PendingApproval, ApprovalVerdict, StepRecord, ToolLoadingState } from "./run-state.js";
export { openAIChatModel, openAIResponsesModel, anthropicModel, DEFAULT_ANTHROPIC_MAX_TOKENS } from "./models.js";
export type { OpenAIChatClient, OpenAIResponsesClient, AnthropicClient, ModelParams, OpenAIModelOptions } from "./models.js";
export type { AgentModel, ModelRequest, ModelResponse, SdkRequestOptions } from "./model.js";
export type { AgentHost } from "./host.js";
export type { AgentCodeModeOptions } from "./code-mode.js";
export type { ToolLoadingStep, DeferredToolOptions } from "./deferred-tools.js";
export type { AgentApprove, AgentApprovalRequest } from "./tool-calls.js";
export type { AgentEvents, ModelCallStart, ModelCallEnd, ToolCallStart, ToolCallEnd, SpanInfo, ToolSpanValue } from "./events.js";
export { addUsage, messageText } from "./trace.js";
export type {
  AgentResult,
  AgentStep,
  Block,
  McpContent,
  Role,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolCallAttempt,
  ToolCallRecord,
  CodeRunRecord,
  ToolResultBlock,
  ToolUseBlock,
  TraceMessage,
  Usage,
} from "./trace.js";
export { toOpenAIChatMessages, fromOpenAIChatMessages, fromOpenAIChatCompletion } from "./convert/openai-chat.js";
export type {
  OpenAIChatMessage,
  OpenAIChatMessageParam,
  OpenAIChatContentPart,
  OpenAIChatFunctionCall,
  OpenAIChatConvertOptions,
} from "./convert/openai-chat.js";
export { toOpenAIResponsesInput, fromOpenAIResponsesItems, fromOpenAIResponse } from "./convert/openai-responses.js";
export type { OpenAIResponsesItem, OpenAIResponsesInputItem, OpenAIResponsesConvertOptions } from "./convert/openai-responses.js";
export { toAnthropicMessages, fromAnthropicMessages, fromAnthropicMessage } from "./convert/anthropic.js";
export type {
  AnthropicMessage,
  AnthropicMessageParam,
  AnthropicContentBlockParam,
  AnthropicContentBlock,
  AnthropicConvertOptions,
} from "./convert/anthropic.js";
export { TraceConversionError } from "./convert/shared.js";
