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
import { ProtocolError, ToolError } from "../jsonrpc/errors.js";
import { missingCapability } from "./capabilities.js";
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
  throwOnError?: boolean;
}

/** How many pages a list call follows before it assumes the server loops. */
const MAX_PAGES = 10_000;

export type ClientEventName = keyof ConnectionEvents;

export class McpClient {
  private rootsList: Root[] | undefined;
  /** Capability verdicts per method, for the capabilities they were computed from (they change only on re-negotiation). */
  private checked = new Map<string, ReturnType<typeof missingCapability>>();
  private checkedFor: unknown;

  constructor(
    /** The connection underneath: its state machine, request table and transport. */
    readonly connection: Connection,
    private readonly enforceCapabilities: boolean = true,
    roots?: Root[],
  ) {
    this.rootsList = roots;
  }

  // ---- facts ----------------------------------------------------------------------------------------
  get state(): ConnectionState {
    return this.connection.state;
  }
  get serverInfo(): Implementation | undefined {
    return this.connection.negotiated?.serverInfo as Implementation | undefined;
  }
  get serverCapabilities(): ServerCapabilities | undefined {
    return this.connection.negotiated?.serverCapabilities as ServerCapabilities | undefined;
  }
  get protocolVersion(): string | undefined {
    return this.connection.negotiated?.protocolVersion;
  }
  get instructions(): string | undefined {
    return this.connection.negotiated?.instructions;
  }
  /** `"legacy"` (2025 session era) or `"modern"` (2026-07-28 stateless era), once negotiated. */
  get era(): "legacy" | "modern" | undefined {
    return this.connection.dialectEra;
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
  listTools(options?: RequestOptions): Promise<Tool[]> {
    return this.collect<Tool>("tools/list", "tools", options);
  }

  /**
   * Calls a tool. A result with `isError: true` is returned as it is, unless `throwOnError` asks for a
   * `ToolError`. Not `async` on purpose: a suspended async frame would keep the arguments alive for as
   * long as the call is pending (it is the bulk of a pending call's memory).
   */
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<CallToolResult> {
    const params: Params = args === undefined ? { name } : { name, arguments: args };
    const pending = this.request<CallToolResult>("tools/call", params, options);
    return options?.throwOnError ? pending.then((result) => throwIfToolError(name, result)) : pending;
  }

  // ---- resources --------------------------------------------------------------------------------------
  listResources(options?: RequestOptions): Promise<Resource[]> {
    return this.collect<Resource>("resources/list", "resources", options);
  }
  listResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return this.collect<ResourceTemplate>("resources/templates/list", "resourceTemplates", options);
  }
  readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.request<ReadResourceResult>("resources/read", { uri }, options);
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
  listPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return this.collect<Prompt>("prompts/list", "prompts", options);
  }
  getPrompt(name: string, args?: Record<string, string>, options?: RequestOptions): Promise<GetPromptResult> {
    return this.request<GetPromptResult>("prompts/get", args === undefined ? { name } : { name, arguments: args }, options);
  }

  // ---- the rest -----------------------------------------------------------------------------------------
  complete(
    ref: PromptReference | ResourceTemplateReference,
    argument: { name: string; value: string },
    context?: { arguments?: Record<string, string> },
    options?: RequestOptions,
  ): Promise<CompleteResult> {
    const params: Params = context === undefined ? { ref, argument } : { ref, argument, context };
    return this.request<CompleteResult>("completion/complete", params, options);
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
  on<E extends ClientEventName>(event: E, listener: (...args: ConnectionEvents[E]) => void): this {
    this.connection.on(event, listener as never);
    return this;
  }
  once<E extends ClientEventName>(event: E, listener: (...args: ConnectionEvents[E]) => void): this {
    this.connection.once(event, listener as never);
    return this;
  }
  off<E extends ClientEventName>(event: E, listener?: (...args: ConnectionEvents[E]) => void): this {
    this.connection.off(event, listener as never);
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

  /** Follows `nextCursor` and returns every item of every page. */
  private async collect<T>(method: string, key: string, options?: RequestOptions): Promise<T[]> {
    const items: T[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await this.request<Result>(method, cursor === undefined ? undefined : { cursor }, options);
      const list = result[key];
      if (Array.isArray(list)) for (const item of list) items.push(item as T);
      const next = result.nextCursor;
      if (typeof next !== "string" || next === "") return items;
      if (seen.has(next)) throw new ProtocolError(`${method}: the server returned cursor ${JSON.stringify(next)} twice; stopping to avoid a loop`, -32603);
      seen.add(next);
      cursor = next;
    }
    throw new ProtocolError(`${method}: more than ${MAX_PAGES} pages; stopping`, -32603);
  }
}

function throwIfToolError(name: string, result: CallToolResult): CallToolResult {
  if (result.isError === true) throw new ToolError(`Tool ${name} reported an error: ${firstText(result) ?? "(no text)"}`, name, result);
  return result;
}

function firstText(result: CallToolResult): string | undefined {
  for (const block of result.content ?? []) if (block.type === "text") return block.text;
  return undefined;
}
