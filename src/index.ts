/** mcp-switchboard: the public entry. Names here are a promise to users (see API.md). */
export { connect, createClient } from "./client/connect.js";
export { McpClient, type CallToolOptions, type CachedRequestOptions, type ClientEventName, type McpClientSettings } from "./client/client.js";
export { StructuredContentError } from "./client/output-validation.js";
export { ResultCache, MAX_CACHE_TTL_MS } from "./client/result-cache.js";
export type { ClientOptions, HandlerContext } from "./client/options.js";
export type * from "./client/types.js";

export { Connection, type ConnectionOptions, DEFAULT_REQUEST_TIMEOUT_MS } from "./connection/connection.js";
export type { ConnectionState } from "./connection/machine.js";
export type { ConnectionEvents, LogParams, ProgressParams, NotificationEvent } from "./connection/events.js";
export type { RequestOptions, ProgressInfo } from "./connection/request-options.js";
export type { PriorVerdict, ProtocolMode, Era } from "./connection/eras/dialect.js";
export { LEGACY_PROTOCOL_VERSIONS } from "./connection/eras/legacy.js";

export {
  McpError,
  TransportError,
  ConnectionClosedError,
  SessionExpiredError,
  RequestTimeoutError,
  RequestCancelledError,
  ProtocolError,
  MethodNotSupportedError,
  ToolError,
  OverloadError,
  ConfigError,
} from "./jsonrpc/errors.js";
export { ErrorCode } from "./jsonrpc/codes.js";
export type {
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcNotification,
  JsonRpcResponse,
  JsonRpcErrorResponse,
  JsonRpcResultResponse,
} from "./jsonrpc/messages.js";

export type { Transport, TransportSink, SendOptions, TransportKind } from "./transports/transport.js";
export { memoryPair, MemoryTransport } from "./transports/memory.js";
export type { Target } from "./transports/create.js";

export {
  Switchboard,
  type SwitchboardInit,
  type ServerInit,
  type BoardCallOptions,
  type ServerStatus,
} from "./switchboard/switchboard.js";
export type { SwitchboardEvents, FallbackEvent } from "./switchboard/events.js";
export type { SwitchboardHooks, CallContext } from "./switchboard/hooks.js";
export { loadConfig, parseConfig } from "./switchboard/config.js";
export type { SwitchboardConfig, ServerEntry, ConfigInput, ServerEntryInput } from "./switchboard/config-types.js";
export { CircuitOpenError } from "./supervisor/circuit-breaker.js";
