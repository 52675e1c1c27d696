/**
 * What `runAgent` asks of a model: one function from the trace so far and the tools to the next
 * assistant message. The provider models (`openAIChatModel`, `openAIResponsesModel`, `anthropicModel`)
 * are such functions; a user's own model needs nothing more.
 */
import type { Tool } from "../client/types.js";
import type { TraceMessage, Usage } from "./trace.js";

export interface ModelRequest {
  /** The trace so far, in the neutral shape (tool names are MCP names). Do not mutate it. */
  messages: readonly TraceMessage[];
  /** The host's tools, as `listTools()` gives them (MCP names and schemas). */
  tools: readonly Tool[];
  /** Aborted when the run is: pass it to the HTTP call. */
  signal: AbortSignal;
  /** 1 for the first model call of the run. */
  turn: number;
}

export interface ModelResponse {
  /** The assistant message: text, thinking and `tool_use` blocks (MCP tool names). */
  message: TraceMessage;
  /** Token counts as the provider reported them. */
  usage?: Usage | undefined;
  /** The provider's own stop reason (`tool_calls`, `end_turn`, `length`, ...), kept in the step. */
  stopReason?: string | undefined;
}

/** A model: `(request) => Promise<ModelResponse>`. */
export type AgentModel = (request: ModelRequest) => Promise<ModelResponse>;

/**
 * The options an SDK method takes beside its body. The official clients accept `{ signal }` there;
 * typed structurally so this package depends on no provider SDK.
 */
export interface SdkRequestOptions {
  signal?: AbortSignal | undefined;
}
