/**
 * The spec's payload types, as the official SDK publishes them, from the copy that ships with this package
 * (types/mcp-spec.d.ts): users need not install the SDK. Types only: nothing is imported at run time.
 */
export type {
  Tool,
  CallToolResult,
  ListToolsResult,
  Resource,
  ResourceTemplate,
  ReadResourceResult,
  Prompt,
  GetPromptResult,
  CompleteResult,
  ClientCapabilities,
  ServerCapabilities,
  Implementation,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  Root,
  ListRootsResult,
  LoggingLevel,
  PromptReference,
  ResourceTemplateReference,
} from "../../types/mcp-spec.js";
