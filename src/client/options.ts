import type { PriorVerdict, ProtocolMode } from "../connection/eras/dialect.js";
import type { Instrumentation } from "../connection/instrumentation.js";
import type { UrlPolicy, UrlPolicyOptions } from "../auth/url-policy.js";
import type { ClientCapabilities, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult, Implementation, Root } from "./types.js";

/** Options of `connect()`. */
export interface ClientOptions {
  /** Who this client is, sent to the server. Default `{ name: "mcp-switchboard", version }`. */
  clientInfo?: Implementation | undefined;
  /** Extra capabilities to declare; those of the handlers below are added automatically. */
  capabilities?: ClientCapabilities | undefined;
  /** Default deadline per request, ms (default 60000). */
  requestTimeoutMs?: number | undefined;
  /** `"auto"` (default): speak what the server speaks; `"legacy"`: the 2025 era; or a pinned version. */
  protocol?: ProtocolMode | undefined;
  /** An era verdict from an earlier connection to the same server, to skip the probe. */
  prior?: PriorVerdict | undefined;
  /** How long the `"auto"` era probe waits on stdio before deciding the server is of the 2025 era (default 10000). */
  probeTimeoutMs?: number | undefined;
  /**
   * The deadline of each handshake request (the era probe, `initialize`), apart from the calls'
   * `requestTimeoutMs` (its default). A Switchboard sets it to the server's `startTimeoutMs`.
   */
  handshakeTimeoutMs?: number | undefined;
  /**
   * Declare the tasks extension (2026 era): a tool call the server turns into a task is polled to its
   * end, and `callTool` resolves with the final result.
   */
  tasks?: boolean | undefined;
  /** Answers `sampling/createMessage`. Declares the `sampling` capability. */
  onSampling?: ((params: CreateMessageRequestParams, context: HandlerContext) => Promise<CreateMessageResult> | CreateMessageResult) | undefined;
  /** Answers `elicitation/create`. Declares the `elicitation` capability (form and URL modes). */
  onElicitation?: ((params: ElicitRequestParams, context: HandlerContext) => Promise<ElicitResult> | ElicitResult) | undefined;
  /** Answers `roots/list`. Declares the `roots` capability. */
  onRoots?: ((context: HandlerContext) => Promise<Root[] | { roots: Root[] }> | Root[] | { roots: Root[] }) | undefined;
  /** A static roots list, in place of `onRoots`. Change it later with `client.setRoots()`. */
  roots?: Root[] | undefined;
  /**
   * Calling a method the server did not declare a capability for fails at once with
   * `MethodNotSupportedError`, without a round trip. Set false to send it anyway.
   */
  enforceCapabilities?: boolean | undefined;
  /**
   * Keep list results (while the server declared `listChanged`, or for the TTL it gave) and TTL'd
   * resource reads, so repeating them costs no round trip (default true). See docs/guide/connecting.md, "The cache".
   */
  cache?: boolean | undefined;
  /**
   * Check every tool result's `structuredContent` against the tool's `outputSchema` (default false;
   * `callTool` takes the same option per call). A mismatch rejects with `StructuredContentError`.
   */
  validateStructuredContent?: boolean | undefined;
  /**
   * 2026 era: once connected, open one `subscriptions/listen` for the lists the server advertises
   * `listChanged` for, so `toolsChanged`/`resourcesChanged`/`promptsChanged` (and the caches that rely
   * on them) work as in the 2025 era, where they arrive unasked (default true). A refused listen is an
   * `error` event, never a failed `connect()`.
   */
  autoListen?: boolean | undefined;
  /** Requests made before the connection is ready wait in a queue of at most this many (default 10000). */
  maxQueuedRequests?: number | undefined;
  /**
   * The largest message the server may send, in bytes (default 16 MiB), on every transport: a stdio
   * line, an HTTP body or event, a WebSocket frame. Enforced while reading; a larger one fails its
   * request with `MessageTooLargeError`. Ignored for a `Transport` object (give it to its constructor).
   */
  maxMessageBytes?: number | undefined;
  /**
   * Which URLs the client may fetch: the server's, its redirects, its OAuth metadata and endpoints,
   * checked after DNS and before connecting (auth/url-policy.ts). Unset: the defaults (loopback allowed,
   * link-local and cloud metadata refused, private ranges refused for URLs that came from a server).
   */
  urlPolicy?: UrlPolicyOptions | UrlPolicy | undefined;
  /**
   * Spans and metrics for every request, per the MCP semantic conventions: `otelInstrumentation()` from
   * `mcp-switchboard/telemetry`, or your own `Instrumentation`. Off by default, and free then. See
   * docs/guide/telemetry.md, "Telemetry".
   */
  telemetry?: Instrumentation | undefined;
}

/** Given to every handler of a server-to-client request. */
export interface HandlerContext {
  /** Aborted when the server cancels its request or the connection closes. */
  signal: AbortSignal;
  /** The method the server called. */
  method: string;
  /** 2026 era: the server's key for this request in its `input_required` result (a gateway passes it on). */
  inputKey?: string | undefined;
}
