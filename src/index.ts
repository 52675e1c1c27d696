/**
 * mcp-switchboard: the public entry. Names here are a promise to users (see docs/API.md).
 *
 * @module mcp-switchboard
 */
import { setFleetLoader } from "./switchboard/fleet-seam.js";

export { connect, createClient } from "./client/connect.js";
export { McpClient, type CallToolOptions, type CachedRequestOptions, type ClientEventName, type McpClientSettings } from "./client/client.js";
export { StructuredContentError } from "./client/output-validation.js";
export { ResultCache, MAX_CACHE_TTL_MS } from "./client/result-cache.js";
export type { ClientOptions, HandlerContext } from "./client/options.js";
export type { CallHandlers } from "./client/call-handlers.js";
export type * from "./client/types.js";
export {
  listSkills,
  getSkill,
  loadSkill,
  skillsExtension,
  LoadedSkill,
  SKILLS_EXTENSION,
  type Skill,
  type SkillFile,
  type SkillFileContent,
  type LoadSkillOptions,
} from "./client/skills.js";

export { DEFAULT_REQUEST_TIMEOUT_MS } from "./connection/connection.js";
export { VERSION } from "./util/version.js";
export type { ConnectionState } from "./connection/machine.js";
export type { ConnectionEvents, LogParams, ProgressParams, NotificationEvent } from "./connection/events.js";
export type { RequestOptions, ProgressInfo } from "./connection/request-options.js";
export type { Instrumentation, ConnectionObserver, MessageObserver, SessionFacts } from "./connection/instrumentation.js";
export type { PriorVerdict, ProtocolMode, Era } from "./connection/eras/dialect.js";
export { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS, SUPPORTED_PROTOCOL_VERSIONS } from "./connection/eras/versions.js";
export { Subscription, type ListenFilter, type ListenOptions, type ListenEnd } from "./connection/eras/listen.js";
export { UnsupportedProtocolVersionError, InputRequiredRoundsError, ResourceNotFoundError } from "./connection/eras/era-errors.js";

export {
  McpError,
  TransportError,
  ConnectionClosedError,
  SessionExpiredError,
  StreamLostError,
  MessageTooLargeError,
  RequestTimeoutError,
  RequestCancelledError,
  ProtocolError,
  MethodNotSupportedError,
  EncodingError,
  ToolError,
  OverloadError,
  ConfigError,
  SkillVerificationError,
  type SkillVerificationReason,
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
export { createTransport, type Target, type UrlTarget } from "./transports/create.js";
export { StdioTransport, type StdioTarget } from "./transports/stdio.js";
export { StreamableHttpTransport, type StreamableHttpOptions, type HeaderProvider } from "./transports/streamable-http.js";
export { LegacySseTransport, type LegacySseOptions } from "./transports/legacy-sse.js";
export { WebSocketTransport, type WebSocketOptions } from "./transports/websocket.js";
export type { AuthOption } from "./transports/auth.js";

export {
  oauth,
  OAuthProvider,
  memoryTokenStore,
  fileTokenStore,
  defaultTokenFile,
  AuthRequiredError,
  AuthorizationError,
  isAuthProvider,
  type OAuthOptions,
  type OAuthEvent,
  type EnterpriseOptions,
  type AuthorizationUrlInfo,
  type AuthProvider,
  type AuthRequest,
  type AuthChallenge,
  type ChallengeVerdict,
  type TokenStore,
  type StoredAuth,
  type StoredTokens,
  type StoredClient,
  type StoreChange,
  type LoopbackOptions,
  type OAuthConfig,
} from "./auth/index.js";

export { Switchboard, type SwitchboardInit, type ServerInit, type BoardCallOptions, type ServerStatus } from "./switchboard/switchboard.js";
export type {
  BoardFleet,
  FleetConfig,
  FleetEvent,
  FleetGate,
  FleetGateState,
  FleetLimits,
  FleetListSync,
  KeptList,
  SharedListKind,
} from "./switchboard/fleet-seam.js";
export type { FleetMemberStatus, MemberSummary, ServerSummary } from "./switchboard/member-summary.js";
export type { SwitchboardEvents, FallbackEvent } from "./switchboard/events.js";
export type { SwitchboardHooks, CallContext, ApprovalRequest, ApprovalDecision, FallbackRequest, FallbackDecision } from "./switchboard/hooks.js";
export { loadConfig, parseConfig, type LoadConfigOptions } from "./switchboard/config.js";
export type { ConfigInputHandler, ConfigInputRequest } from "./switchboard/config-hosts.js";
export type { Environment } from "./switchboard/config-substitute.js";
export type { SwitchboardConfig, ServerEntry, ConfigInput, ServerEntryInput } from "./switchboard/config-types.js";
export { CircuitOpenError } from "./supervisor/circuit-breaker.js";

export * from "./adapters/index.js";
export type { ToolSearchHit, ToolSearchOptions, ToolSearchResults, UnavailableServer } from "./catalog/search-index.js";
export type { EmbedFunction } from "./catalog/embedding-index.js";

export * from "./codemode/index.js";

export * from "./agents/index.js";

export { memoryCheckpointer } from "./durable/memory-checkpointer.js";
export { fileCheckpointer, type FileCheckpointerOptions } from "./durable/file-checkpointer.js";

// Importing the observer registers it, so `board.observe()` works for anyone who imports the package.
export * from "./observe/index.js";
export type { ObserveOptions, BoardObserver, CallTap, WatchedCall } from "./switchboard/observation.js";

// Types that public signatures above name (options of constructors and functions, event payloads), so
// users can name them too and the API reference links them (docs/API.md).
export type { McpErrorOptions, TransportErrorOptions, ConfigErrorOptions, SkillVerificationErrorOptions } from "./jsonrpc/errors.js";
export type { JsonRpcErrorObject } from "./jsonrpc/messages.js";
export type { AuthorizationErrorOptions, AuthRequiredErrorOptions } from "./auth/errors.js";
export type { Supplier } from "./auth/options.js";
export type { FetchLike } from "./auth/http.js";
export type { Params, Result } from "./connection/eras/dialect.js";
export type { SubscriptionEvents } from "./connection/eras/listen.js";
export type { CachedKind, CachedMethod } from "./client/result-cache.js";
export type { ListFacts } from "./client/list-facts.js";
export type { MemoryPairOptions } from "./transports/memory.js";
export type { TransportSettings } from "./transports/create.js";
export type { StdioTransportOptions } from "./transports/stdio.js";
export type { CircuitPolicy, CircuitState, CircuitStateChange } from "./supervisor/circuit-breaker.js";
export type { ServerState } from "./switchboard/server-runtime.js";
export type { WhileRestarting } from "./switchboard/router.js";
export type { ToolFilter, FilterableTool } from "./switchboard/namespacing.js";
export type { FromConfigOptions } from "./switchboard/board-options.js";
export { ServerUnavailableError, UnknownToolError, type ServerUnavailableOptions } from "./switchboard/tool-errors.js";
export { ToolChangedError, toolFingerprint, type PinToolsOption, type ToolChangedEvent } from "./switchboard/tool-pins.js";
export type { PrincipalView } from "./switchboard/principal-view.js";
export { principalStore, type PrincipalHeaders, type PrincipalSettings } from "./switchboard/principals.js";
export {
  UrlPolicy,
  classifyAddress,
  type UrlPolicyOptions,
  type UrlOrigin,
  type UrlCheck,
  type AddressClass,
  type LookupFunction,
  type LookupCallback,
  type AddressResolver,
} from "./auth/url-policy.js";

// A config's "fleet" is built by "mcp-switchboard/fleet", imported only when a config has one (so a board
// without a fleet loads none of src/fleet/ nor ioredis); the config loader below the entry cannot import it.
setFleetLoader(async (config) => (await import("./fleet/index.js")).redisFleet({ url: config.redis }, config.prefix));
