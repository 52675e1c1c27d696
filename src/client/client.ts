/**
 * McpClient: the typed MCP API over one connection. Thin by design: each method is a request with the
 * right params; the connection does the work, the era dialect the wire details.
 */
import type { Connection } from "../connection/connection.js";
import type { Params, PriorVerdict, Result } from "../connection/eras/dialect.js";
import type { ListenFilter, ListenOptions, Subscription } from "../connection/eras/listen.js";
import type { ConnectionEvents } from "../connection/events.js";
import type { ConnectionState } from "../connection/machine.js";
import type { RequestOptions } from "../connection/request-options.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { ProtocolError } from "../jsonrpc/errors.js";
import { mayBeAsked, missingCapability } from "./capabilities.js";
import { OutputValidator } from "./output-validation.js";
import type { CallHandlers } from "./call-handlers.js";
import { withPage, type ListFacts } from "./list-facts.js";
import { ResultCache, type CacheFacts, type CachedMethod } from "./result-cache.js";
import { throwIfToolError } from "./tool-error-result.js";
import type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  Prompt,
  PromptReference,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ResourceTemplateReference,
  Root,
  ServerCapabilities,
  Tool,
} from "./types.js";

export interface CallToolOptions extends RequestOptions {
  /** Throw `ToolError` when the tool answers `isError: true` (default: return the result). */
  throwOnError?: boolean | undefined;
  /** Check `structuredContent` against the tool's `outputSchema` (default: `connect()`'s, itself off); a mismatch rejects (StructuredContentError). */
  validateStructuredContent?: boolean | undefined;
  /** Entries for the request's `params._meta` (e.g. an idempotency key the server may deduplicate on). */
  meta?: Record<string, unknown> | undefined;
  /** This call's own handlers for the server requests it causes, in place of `connect()`'s (call-handlers.ts). */
  handlers?: CallHandlers | undefined;
}

/** Options of the list calls and `readResource`. */
export interface CachedRequestOptions extends RequestOptions {
  /** `false`: ask the server even if a fresh cached result exists (the answer still refreshes the cache). */
  cache?: boolean | undefined;
}

/** How an McpClient behaves beyond its connection: the client-level options of `connect()`. */
export interface McpClientSettings {
  /** Fail fast on methods the server did not declare (default true). */
  enforceCapabilities?: boolean | undefined;
  /** The static roots list offered to the server. */
  roots?: Root[] | undefined;
  /** Keep list results and TTL'd reads (default true). */
  cache?: boolean | undefined;
  /** Check every tool result's `structuredContent` against the tool's `outputSchema` (default false). */
  validateStructuredContent?: boolean | undefined;
}

/** How many pages a list call follows before it assumes the server loops. */
const MAX_PAGES = 10_000;

export type ClientEventName = keyof ConnectionEvents;

type OptionsWithHandlers = RequestOptions & { handlers?: CallHandlers | undefined };

export class McpClient {
  private rootsList: Root[] | undefined;
  /** Capability verdicts per method, for the capabilities they were computed from (they change only on re-negotiation). */
  private checked = new Map<string, ReturnType<typeof missingCapability>>();
  private checkedFor: unknown;
  private readonly enforceCapabilities: boolean;
  private readonly cacheEnabled: boolean;
  private readonly validateByDefault: boolean;
  private askable: boolean | undefined; // whether a call's handlers need their scope (capabilities.ts: mayBeAsked)
  /** List pages and TTL'd reads; see result-cache.ts for the rules. */
  readonly cache: ResultCache;
  /** Created on the first call that validates; most clients never pay for ajv. */
  private validator: OutputValidator | undefined;
  /** Each tool's outputSchema from the latest tool list, for validation; dropped when the list changes. */
  private outputSchemas: Map<string, object | undefined> | undefined;
  /** What the pages of the latest listing of each method said of caching (list-facts.ts); made by the first. */
  private lists: Map<CachedMethod, ListFacts> | undefined;
  /**
   * The connection underneath (state machine, request table, transport). Not part of the API: tests
   * and the Switchboard's diagnostics reach into it, and the build strips it from the published types.
   *
   * @internal
   */
  readonly connection: Connection;

  /**
   * Use `connect()` or `createClient()`.
   *
   * @internal
   */
  constructor(connection: Connection, settings: McpClientSettings = {}) {
    this.connection = connection;
    this.rootsList = settings.roots;
    this.enforceCapabilities = settings.enforceCapabilities ?? true;
    this.cacheEnabled = settings.cache ?? true;
    this.validateByDefault = settings.validateStructuredContent ?? false;
    this.cache = new ResultCache(new ClientFacts(this));
    // Shared functions called with this client as `this` (eventemitter3's context): no closures per client.
    connection.on("toolsChanged", McpClient.onToolsChanged, this);
    connection.on("resourcesChanged", McpClient.onResourcesChanged, this);
    connection.on("promptsChanged", McpClient.onPromptsChanged, this);
    connection.on("resourceUpdated", McpClient.onResourceUpdated, this);
    connection.on("state", McpClient.onState, this);
  }

  private static onToolsChanged(this: McpClient): void {
    this.cache.dropKind("tools");
    this.outputSchemas = undefined;
  }

  private static onResourcesChanged(this: McpClient): void {
    this.cache.dropKind("resources");
  }

  private static onPromptsChanged(this: McpClient): void {
    this.cache.dropKind("prompts");
  }

  private static onResourceUpdated(this: McpClient, params: ConnectionEvents["resourceUpdated"][0]): void {
    if (typeof params?.uri === "string") this.cache.dropRead(params.uri);
  }

  private static onState(this: McpClient, state: ConnectionState): void {
    if (state === "ready") return;
    this.cache.clear();
    this.outputSchemas = undefined;
  }

  /** The client's own listeners on its connection, which `off(event)` without a listener must keep. */
  private static readonly internal: ReadonlySet<unknown> = new Set([
    McpClient.onToolsChanged,
    McpClient.onResourcesChanged,
    McpClient.onPromptsChanged,
    McpClient.onResourceUpdated,
    McpClient.onState,
  ]);

  // ---- facts ----------------------------------------------------------------------------------------
  get state(): ConnectionState {
    return this.connection.state;
  }
  get serverInfo(): Implementation | undefined {
    return this.connection.negotiated?.serverInfo;
  }
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.connection.negotiated?.serverCapabilities;
  }
  get protocolVersion(): string | undefined {
    return this.connection.negotiated?.protocolVersion;
  }
  get instructions(): string | undefined {
    return this.connection.negotiated?.instructions;
  }
  /** `"legacy"` (2025 session era) or `"modern"` (2026-07-28 stateless era), once negotiated. */
  get era(): "legacy" | "modern" | undefined {
    return this.connection.era;
  }

  // ---- generic --------------------------------------------------------------------------------------
  /** Any request. Capability checks apply to the methods the spec ties to a capability. */
  request<T = Result>(method: string, params?: Params, options?: RequestOptions): Promise<T> {
    if (this.enforceCapabilities && this.connection.state === "ready") {
      const missing = this.capabilityCheck(method);
      if (missing) return Promise.reject(missing);
    }
    return this.connection.request(method, params, options) as Promise<T>;
  }

  notify(method: string, params?: Params): Promise<void> {
    return this.connection.notify(method, params);
  }

  // ---- tools ----------------------------------------------------------------------------------------
  async listTools(options?: CachedRequestOptions): Promise<Tool[]> {
    const tools = await this.collect<Tool>("tools/list", "tools", options);
    if (this.validator !== undefined || this.validateByDefault) this.outputSchemas = new Map(tools.map((tool) => [tool.name, tool.outputSchema]));
    return tools;
  }

  /**
   * Calls a tool. A result with `isError: true` is returned as it is, unless `throwOnError` asks for a
   * `ToolError`. Not `async` on purpose: a suspended async frame would keep the arguments alive for as
   * long as the call is pending (it is the bulk of a pending call's memory).
   */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult> {
    const params: Params = args === undefined ? { name } : { name, arguments: args };
    if (options?.meta !== undefined) params._meta = options.meta;
    let pending = this.withHandlers(options, (sent) => this.request<CallToolResult>("tools/call", params, sent));
    if (options?.validateStructuredContent ?? this.validateByDefault) pending = pending.then((result) => this.checkOutput(name, result));
    return options?.throwOnError ? pending.then((result) => throwIfToolError(name, result)) : pending;
  }

  // ---- resources --------------------------------------------------------------------------------------
  listResources(options?: CachedRequestOptions): Promise<Resource[]> {
    return this.collect<Resource>("resources/list", "resources", options);
  }
  listResourceTemplates(options?: CachedRequestOptions): Promise<ResourceTemplate[]> {
    return this.collect<ResourceTemplate>("resources/templates/list", "resourceTemplates", options);
  }
  /** Served from the cache only when the server gave the result a TTL (2026 era); see result-cache.ts. `handlers`: as callTool's. */
  readResource(uri: string, options?: CachedRequestOptions & Pick<CallToolOptions, "handlers">): Promise<ReadResourceResult> {
    return this.withHandlers(options, (sent) => this.cached("resources/read", ResultCache.readKey(uri), { uri }, sent) as Promise<ReadResourceResult>);
  }
  /** `resourceUpdated` events for `uri`: resources/subscribe (2025 era) or a listen stream (2026 era). */
  async subscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.ensureCapability("resources/subscribe");
    await this.connection.subscribeResource(uri, options);
  }
  async unsubscribeResource(uri: string, options?: RequestOptions): Promise<void> {
    await this.ensureCapability("resources/unsubscribe");
    await this.connection.unsubscribeResource(uri, options);
  }

  /**
   * Opens a `subscriptions/listen` stream (2026 era) for the change notifications in `filter`; resolves
   * after the server's acknowledgement (`subscription.honoured` is what it agreed to). They arrive as
   * the usual events (`toolsChanged`, `resourceUpdated`, ...) and on the subscription itself. The 2025
   * era has no listen (its notifications come unasked) and rejects with `MethodNotSupportedError`.
   */
  listen(filter: ListenFilter, options?: ListenOptions): Promise<Subscription> {
    return this.connection.listen(filter, options);
  }

  /** 2026 era: the server's `server/discover` result (versions, capabilities, extensions, ttlMs, cacheScope). */
  get discover(): Result | undefined {
    return this.connection.negotiated?.discover;
  }
  /** The era verdict, to pass as `prior` when connecting to the same server later (skips the probe). */
  get verdict(): PriorVerdict | undefined {
    return this.connection.verdict;
  }

  // ---- prompts ----------------------------------------------------------------------------------------
  listPrompts(options?: CachedRequestOptions): Promise<Prompt[]> {
    return this.collect<Prompt>("prompts/list", "prompts", options);
  }
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions & Pick<CallToolOptions, "handlers">): Promise<GetPromptResult> {
    const params = args === undefined ? { name } : { name, arguments: args };
    return this.withHandlers(options, (sent) => this.request<GetPromptResult>("prompts/get", params, sent));
  }

  // ---- the rest -----------------------------------------------------------------------------------------
  complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: RequestOptions & Pick<CallToolOptions, "handlers">,
  ): Promise<CompleteResult> {
    const params: Params = context === undefined ? { ref, argument } : { ref, argument, context };
    return this.withHandlers(options, (sent) => this.request<CompleteResult>("completion/complete", params, sent));
  }
  async setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<void> {
    await this.request("logging/setLevel", { level }, options);
  }
  async ping(options?: RequestOptions): Promise<void> {
    await this.request("ping", undefined, options);
  }

  // ---- roots (what the client offers the server) ------------------------------------------------------
  /** The static roots list given to `connect()` or set here. */
  get roots(): Root[] | undefined {
    return this.rootsList;
  }
  /** Replaces the roots list and tells the server it changed. */
  async setRoots(roots: Root[]): Promise<void> {
    this.rootsList = roots;
    if (this.connection.state === "ready" && this.era === "legacy") {
      await this.notify("notifications/roots/list_changed");
    }
  }

  // ---- events & lifecycle ------------------------------------------------------------------------------
  /**
   * Connects a client made by `createClient()` and negotiates; resolves once ready (`connect()` does
   * both). Rejects with the reason it could not get there; the client is then `failed`.
   */
  start(): Promise<void> {
    return this.connection.start();
  }

  /** Events of the connection (see `ConnectionEvents`). */
  on<E extends ClientEventName>(event: E, listener: (...args: ConnectionEvents[E]) => void): this {
    this.connection.on(event, listener);
    return this;
  }
  once<E extends ClientEventName>(event: E, listener: (...args: ConnectionEvents[E]) => void): this {
    this.connection.once(event, listener);
    return this;
  }
  /** Removes `listener`, or without one every listener of `event` that was added through `on`/`once`. */
  off<E extends ClientEventName>(event: E, listener?: (...args: ConnectionEvents[E]) => void): this {
    if (listener !== undefined) {
      this.connection.off(event, listener);
      return this;
    }
    for (const added of this.connection.listeners(event)) {
      if (!McpClient.internal.has(added)) this.connection.off(event, added);
    }
    return this;
  }

  /** Closes the connection. Idempotent; every pending request settles. */
  close(): Promise<void> {
    return this.connection.close();
  }

  private async ensureCapability(method: string): Promise<void> {
    if (this.enforceCapabilities && this.connection.state === "ready") {
      const missing = this.capabilityCheck(method);
      if (missing) throw missing;
    }
  }

  private capabilityCheck(method: string): ReturnType<typeof missingCapability> {
    const capabilities = this.connection.negotiated?.serverCapabilities;
    if (capabilities !== this.checkedFor) {
      this.checked = new Map();
      this.checkedFor = capabilities;
    }
    if (!this.checked.has(method)) this.checked.set(method, missingCapability(method, capabilities));
    return this.checked.get(method);
  }

  /** Runs `call` with its own handlers as the request's origin, when a server may ask the client or the handlers take logs. */
  private withHandlers<O extends OptionsWithHandlers, T>(options: O | undefined, call: (sent: O | undefined) => Promise<T>): Promise<T> {
    const handlers = options?.handlers;
    // Without anything a server may ask, a call's handlers matter only for its own logs.
    const routed = handlers !== undefined && ((this.askable ??= mayBeAsked(this.connection.clientCapabilities)) || handlers.onLog !== undefined);
    return routed ? call({ ...options, origin: handlers } as O) : call(options);
  }

  /** A request whose result the cache may answer or keep. */
  private cached(method: CachedMethod, key: string, params: Params | undefined, options: CachedRequestOptions | undefined): Promise<Result> {
    const fetch = () => this.request<Result>(method, params, options);
    if (!this.cacheEnabled) return fetch();
    const bypass = options?.cache === false;
    const share = options?.signal === undefined && options?.onProgress === undefined;
    return this.cache.get(method, key, fetch, { bypass, share, foreign: options?.auth !== undefined });
  }

  /** What the latest complete listing of `method` said of caching (`ttlMs`, `cacheScope`); undefined before one. */
  listFacts(method: CachedMethod): ListFacts | undefined {
    return this.lists?.get(method);
  }

  /** Validates a tool result against the tool's outputSchema, fetching the tool list once if needed. */
  private async checkOutput(name: string, result: CallToolResult): Promise<CallToolResult> {
    const validator = (this.validator ??= new OutputValidator());
    if (result.isError === true) return result;
    if (this.outputSchemas === undefined || !this.outputSchemas.has(name)) await this.listTools();
    return validator.check(name, this.outputSchemas?.get(name), result);
  }

  /** Follows `nextCursor` and returns every item of every page. */
  private async collect<T>(method: CachedMethod, key: string, options?: CachedRequestOptions): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    let facts: ListFacts | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const params = cursor === undefined ? undefined : { cursor };
      const result = await this.cached(method, ResultCache.pageKey(method, cursor), params, options);
      const list = result[key];
      if (Array.isArray(list)) for (const item of list) items.push(item as T);
      facts = withPage(facts, result);
      const next = result.nextCursor;
      if (typeof next !== "string" || next === "") {
        (this.lists ??= new Map()).set(method, facts);
        return items;
      }
      if (seen.has(next))
        throw new ProtocolError(`${method}: the server returned cursor ${JSON.stringify(next)} twice; stopping to avoid a loop`, ErrorCode.InternalError);
      seen.add(next);
      cursor = next;
    }
    throw new ProtocolError(`${method}: more than ${MAX_PAGES} pages; stopping`, ErrorCode.InternalError);
  }
}

/** What the result cache asks of its client, as methods on one object rather than two closures per client. */
class ClientFacts implements CacheFacts {
  constructor(private readonly client: McpClient) {}
  era(): "legacy" | "modern" | undefined {
    return this.client.era;
  }
  serverCapabilities(): Record<string, unknown> | undefined {
    return this.client.serverCapabilities as Record<string, unknown> | undefined;
  }
}
