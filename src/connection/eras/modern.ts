/**
 * The stateless era (2026-07-28): no handshake and no session. Every request carries the protocol
 * version and client capabilities in `params._meta` (the envelope, built once per connection and
 * shared); over HTTP it also names itself in `Mcp-Method` / `Mcp-Name` / `Mcp-Param-*` headers and is
 * cancelled by aborting its exchange. Results say what they are in `resultType`; `input_required` is
 * answered through the client's handlers and retried (MRTR), `task` is polled when the tasks extension
 * is on. Servers send no requests.
 */
import { ErrorCode } from "../../jsonrpc/codes.js";
import { McpError, ProtocolError } from "../../jsonrpc/errors.js";
import type { JsonRpcId } from "../../jsonrpc/messages.js";
import type { SendOptions } from "../../transports/transport.js";
import type { RequestOptions } from "../request-options.js";
import type { PendingRequest } from "../request-table.js";
import { markUncacheable, type Dialect, type Params, type Result, type Wire } from "./dialect.js";
import { UnsupportedProtocolVersionError, asResourceNotFound, invalidResult, looksLegacy, lostOnTheWay, missingCapabilities, notInEra } from "./era-errors.js";
import { startAutoListen } from "./auto-listen.js";
import { Subscription, type ListenFilter, type ListenHost, type ListenOptions, type ListenStream } from "./listen.js";
import { META_SUBSCRIPTION_ID, buildEnvelope, encodeHeaderValue, mcpNameOf, withEnvelope, withTasks, type Envelope } from "./modern-wire.js";
import { announceListChanged, cancelledRequestId, emitNotificationEvent, notifyCancelled } from "./notifications.js";
import { MODERN_PROTOCOL_VERSIONS, mutualVersion, supportedVersionsOf } from "./versions.js";
import { MAX_INPUT_ROUNDS, MRTR_METHODS, nextRoundParams, roundsExceeded } from "./mrtr.js";
import { ToolFacts } from "./tool-facts.js";
import { CallScope } from "./call-scope.js";
import { runTask } from "./tasks.js";

/**
 * Methods this era does not have. `logging/setLevel` is kept: it sets the level requests carry. `ping`
 * is kept too: the era has no ping, so it becomes a `server/discover` (a liveness check; see request).
 */
const LEGACY_ONLY = new Set(["initialize", "resources/subscribe", "resources/unsubscribe", "tasks/result", "tasks/list"]);
/** Results that are safe to fetch again when their stream broke (they change nothing). */
const REPEATABLE = new Set([
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/get",
  "server/discover",
  "completion/complete",
  "tasks/get",
]);

export interface ModernDialectOptions {
  /** The transport is HTTP: send the header layer and drop tools whose header annotations are invalid. */
  http: boolean;
  /** The tasks extension is declared: `resultType: "task"` is expected and driven. */
  tasks: boolean;
  /** What to listen for once ready (see auto-listen.ts); undefined: no automatic listen. */
  autoListen?: ListenFilter | undefined;
  /**
   * Called when a request fails the way requests to a 2025 server do (a "not initialized" or "no
   * session" answer, a result without resultType, -32601 to subscriptions/listen): the cached era
   * verdict that let us skip the probe is wrong now.
   */
  onLegacySign?: (error: Error) => void;
}

export class ModernDialect implements Dialect, ListenHost {
  readonly era = "modern" as const;
  protocolVersion: string;
  private envelope: Envelope;
  private logLevel: string | undefined;
  private readonly capabilities: Record<string, unknown>;
  /** From the last tools/list: what calls need in headers and whether they may be repeated. */
  private readonly tools: ToolFacts;
  private readonly streams = new Map<JsonRpcId, ListenStream>();
  private readonly subscriptions = new Set<Subscription>();
  private resourceWatch: { uris: Set<string>; subscription: Subscription | undefined } = { uris: new Set(), subscription: undefined };
  /** Serialises resource (un)subscriptions (see serialWatch). */
  private watchChain: Promise<void> = Promise.resolve();
  private autoListening = false;
  private disposed = false;

  constructor(
    private readonly wire: Wire,
    version: string,
    private readonly options: ModernDialectOptions,
  ) {
    this.protocolVersion = version;
    this.capabilities = options.tasks ? withTasks(wire.clientCapabilities) : wire.clientCapabilities;
    this.envelope = buildEnvelope(version, this.capabilities, wire.clientInfo);
    this.tools = new ToolFacts(options.http, (error) => wire.emit("error", error));
  }

  get requestTimeoutMs(): number {
    return this.wire.requestTimeoutMs;
  }

  async request(method: string, params: Params | undefined, options?: RequestOptions): Promise<Result> {
    if (LEGACY_ONLY.has(method)) throw notInEra(method, this.era, this.protocolVersion);
    if (method === "logging/setLevel") return this.setLogLevel(params);
    // No ping in this era; server/discover is the cheapest request every 2026 server answers.
    if (method === "ping") return this.request("server/discover", undefined, options).then(() => ({}));
    const started = performance.now();
    // Made at the first round trip after the first (see call-scope.ts): one deadline for the whole call.
    let scope: CallScope | undefined;
    try {
      return await this.rounds(method, params, options, () => (scope ??= new CallScope(method, options, this.wire.requestTimeoutMs, started)));
    } catch (error) {
      throw scope === undefined ? error : scope.settle(error);
    } finally {
      scope?.dispose();
    }
  }

  private async rounds(method: string, params: Params | undefined, options: RequestOptions | undefined, call: () => CallScope): Promise<Result> {
    const wire = this.wire;
    let current = params;
    let versionRetried = false;
    let headersRetried = false;
    let streamRetried = false;
    for (let round = 0, trip = 0; ; trip++) {
      let result: Result;
      // The version this trip goes out with: a -32022 to it after another request already switched
      // (several were in flight) is answered by retrying at the new version, not by switching again.
      const sentWith = this.protocolVersion;
      try {
        const tripOptions = trip === 0 ? options : call().roundOptions();
        result = await wire.roundTrip(method, withEnvelope(current, this.envelope), tripOptions, this.sendFor(method, current));
      } catch (error) {
        if (error instanceof ProtocolError) {
          const supported = supportedVersionsOf(error);
          if (supported !== undefined && !versionRetried) {
            versionRetried = true;
            if (this.protocolVersion === sentWith) this.switchVersion(supported, error);
            continue;
          }
          if (error.code === ErrorCode.HeaderMismatch && method === "tools/call" && !headersRetried) {
            // The header layer disagreed with the body: the tool list we mirrored from is stale, and
            // so is every copy of it above the connection (client cache, Switchboard's tool list).
            headersRetried = true;
            announceListChanged(wire, "tools");
            await this.refreshTools(call());
            continue;
          }
          if (error.code === ErrorCode.MissingRequiredClientCapability) throw missingCapabilities(method, error);
          if (looksLegacy(error)) this.options.onLegacySign?.(error);
          if (method === "resources/read") throw asResourceNotFound(error, current?.uri);
        }
        if (lostOnTheWay(error) && !streamRetried && this.repeatable(method, current, options)) {
          // No resumption in this era: the request goes again as a new request (new id).
          streamRetried = true;
          continue;
        }
        throw error;
      }
      if (result.resultType === undefined) {
        // "Clients MUST treat an absent resultType as complete" (2026-07-28, basic/index; the conformance
        // suite's sep-2322-default-result-type-complete). It is also how a 2025 server answers a request
        // sent without initialize (SDK v1 over stdio does), so a cached era verdict is suspect.
        this.options.onLegacySign?.(invalidResult(method, result, "no resultType (taken as complete)"));
      }
      switch (result.resultType ?? "complete") {
        case "complete":
          if (round > 0) return markUncacheable(result); // an MRTR retry's answer (see UNCACHEABLE)
          return method === "tools/list" ? this.tools.learn(result) : result;
        case "input_required": {
          if (!MRTR_METHODS.has(method)) throw invalidResult(method, result, "input_required is only allowed on tools/call, prompts/get and resources/read");
          if (++round > MAX_INPUT_ROUNDS) throw roundsExceeded(method, MAX_INPUT_ROUNDS, result);
          const scope = call();
          current = await nextRoundParams(wire, params, result, scope.signal, options?.origin);
          if (scope.signal.aborted) throw scope.failure();
          continue;
        }
        case "task":
          if (this.options.tasks && method === "tools/call") {
            return runTask(wire, (m, p, o) => this.request(m, p, o), result, options, call());
          }
          throw invalidResult(method, result, 'resultType "task" needs the tasks extension, which this client did not declare (connect with tasks: true)');
        default:
          throw invalidResult(method, result, `unknown resultType ${JSON.stringify(result.resultType)}`);
      }
    }
  }

  refuseServerRequest(method: string): Error {
    return new McpError(`Dropped a ${method} request from the server: protocol ${this.protocolVersion} has no server-to-client requests`);
  }

  notify(method: string, params?: Params): Promise<void> {
    return this.wire.sendNotification(method, withEnvelope(params, this.envelope), this.options.http ? { headers: { "mcp-method": method } } : undefined);
  }

  cancel(entry: PendingRequest, reason: string): void {
    // HTTP requests are cancelled by aborting their exchange (the connection does that); this is stdio.
    notifyCancelled(this.wire, entry.id, reason);
  }

  /**
   * Logs arrive on a request's own stream, changes on listen streams: each becomes its connection
   * event, and a change tagged with a listen's id also reaches that listen's subscription. On stdio a
   * `notifications/cancelled` naming a listen is the server ending that stream.
   */
  onNotification(method: string, params: Params | undefined): void {
    if (method === "notifications/cancelled") {
      const id = cancelledRequestId(params);
      if (id === undefined) return;
      this.wire.emit("cancelled", params as { requestId: JsonRpcId });
      this.streams.get(id)?.cancelledByServer();
      return;
    }
    emitNotificationEvent(this.wire, method, params);
    const meta = params?._meta as Record<string, unknown> | undefined;
    const id = meta?.[META_SUBSCRIPTION_ID] as JsonRpcId | undefined;
    // Untagged notifications belong to a request's own stream (progress, logs), not to a listen.
    if (id === undefined) return;
    const stream = this.streams.get(id);
    if (stream === undefined) return;
    if (method === "notifications/subscriptions/acknowledged") stream.acknowledged(params?.notifications ?? {});
    else stream.deliver(method, params);
  }

  async listen(filter: ListenFilter, options?: ListenOptions): Promise<Subscription> {
    const subscription = new Subscription(this.wire, this, filter, options);
    this.subscriptions.add(subscription);
    void subscription.closed.then(() => this.subscriptions.delete(subscription));
    try {
      await subscription.open();
    } catch (error) {
      subscription.finish("remote");
      // subscriptions/listen is core in this era: "method not found" is a 2025 server speaking.
      if (error instanceof ProtocolError && error.code === ErrorCode.MethodNotFound) this.options.onLegacySign?.(error);
      throw error;
    }
    return subscription;
  }

  async subscribeResource(uri: string): Promise<void> {
    return this.serialWatch(() => {
      if (this.resourceWatch.uris.has(uri)) return undefined;
      return this.rewatch(new Set(this.resourceWatch.uris).add(uri));
    });
  }

  async unsubscribeResource(uri: string): Promise<void> {
    return this.serialWatch(() => {
      if (!this.resourceWatch.uris.has(uri)) return undefined;
      const uris = new Set(this.resourceWatch.uris);
      uris.delete(uri);
      return this.rewatch(uris);
    });
  }

  /**
   * Resource (un)subscriptions run one at a time: two overlapping rewatches both saw no old stream,
   * both opened one, and the first was never closed (every update arrived twice).
   */
  private serialWatch(step: () => Promise<void> | undefined): Promise<void> {
    const run = this.watchChain.then(step);
    this.watchChain = run.catch(() => {}); // a failed step must not block the next
    return run;
  }

  /**
   * One listen carries every resource subscription: a new set opens a new stream, then the old closes.
   * The set is committed only once the new stream is acknowledged, so a failed rewatch leaves the old
   * stream and the uris it carries as they were.
   */
  private async rewatch(uris: Set<string>): Promise<void> {
    const old = this.resourceWatch.subscription;
    const next = uris.size === 0 ? undefined : await this.listen({ resourceSubscriptions: [...uris] });
    this.resourceWatch = { uris, subscription: next };
    await old?.close();
  }

  // ---- ListenHost -----------------------------------------------------------------------------------

  prepare(filter: ListenFilter): { params: Params; send: SendOptions | undefined } {
    const params = withEnvelope({ notifications: filter }, this.envelope);
    return { params, send: this.sendFor("subscriptions/listen", undefined) };
  }

  route(id: JsonRpcId, stream: ListenStream | undefined): void {
    if (stream === undefined) this.streams.delete(id);
    else this.streams.set(id, stream);
  }

  onReady(): void {
    const filter = this.options.autoListen;
    // Once per dialect: a 2026 connection becomes ready once (no sessions to renew).
    if (filter === undefined || this.autoListening || this.disposed) return;
    this.autoListening = true;
    startAutoListen(
      this.wire,
      filter,
      (f) => this.listen(f),
      () => this.disposed,
    );
  }

  dispose(how: "closed" | "failed"): void {
    this.disposed = true;
    for (const subscription of this.subscriptions) subscription.finish(how === "closed" ? "local" : "remote");
    this.subscriptions.clear();
    this.streams.clear();
  }

  // ---- internals ------------------------------------------------------------------------------------

  private sendFor(method: string, params: Params | undefined): SendOptions | undefined {
    if (!this.options.http) return undefined;
    const headers: Record<string, string> = { "mcp-method": method };
    const name = mcpNameOf(method, params);
    if (name !== undefined) headers["mcp-name"] = encodeHeaderValue(name);
    if (method === "tools/call" && name !== undefined) this.tools.addHeaders(name, params, headers);
    return { headers, resumable: false };
  }

  private setLogLevel(params: Params | undefined): Result {
    const level = params?.level;
    if (typeof level !== "string") throw new ProtocolError("logging/setLevel needs a level", ErrorCode.InvalidParams);
    // The era has no logging/setLevel: the level rides in every later request's _meta instead.
    this.logLevel = level;
    this.envelope = buildEnvelope(this.protocolVersion, this.capabilities, this.wire.clientInfo, level);
    return {};
  }

  /** -32022 mid-session: move to a version both sides speak, or say clearly that there is none. */
  private switchVersion(supported: string[], error: ProtocolError): void {
    const data = (error.data ?? {}) as { supported?: unknown; requested?: unknown };
    const mutual = mutualVersion(supported.filter((version) => version !== this.protocolVersion));
    if (mutual === undefined) {
      throw new UnsupportedProtocolVersionError(
        `The server no longer accepts protocol ${this.protocolVersion} and supports ${supported.length ? supported.join(", ") : "no version it named"}; ` +
          `this client speaks ${MODERN_PROTOCOL_VERSIONS.join(", ")} and 2025 versions. Reconnect (the era is negotiated again) or pin protocol: "legacy" if the server went back to 2025.`,
        data,
      );
    }
    this.protocolVersion = mutual;
    this.envelope = buildEnvelope(mutual, this.capabilities, this.wire.clientInfo, this.logLevel);
    this.wire.transport.setProtocolVersion?.(mutual);
  }

  private async refreshTools(scope: CallScope): Promise<void> {
    let cursor: string | undefined;
    this.tools.reset(); // the listing below fills it again, page by page
    for (let page = 0; page < 1000; page++) {
      const result = await this.request("tools/list", cursor === undefined ? undefined : { cursor }, {
        maxTotalTimeoutMs: scope.remaining(),
        signal: scope.signal,
      });
      cursor = typeof result.nextCursor === "string" && result.nextCursor !== "" ? result.nextCursor : undefined;
      if (cursor === undefined) break;
    }
  }

  private repeatable(method: string, params: Params | undefined, options: RequestOptions | undefined): boolean {
    if (method === "tools/call" && typeof params?.name === "string") return this.tools.repeatable(params.name, options?.idempotent);
    return options?.idempotent ?? REPEATABLE.has(method);
  }
}
