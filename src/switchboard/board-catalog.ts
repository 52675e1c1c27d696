/**
 * What a Switchboard adds for catalogs: the search index over every server's exposed tools (rebuilt
 * when the board's tool list changes, so it follows `list_changed`), the catalog snapshot file, and
 * lazy servers. A lazy server is not among the children of the board's supervisor: the first call
 * (or, without a snapshot, the first listing) gives it a supervisor of its own, so it restarts under
 * the same policy as any server; `idleMs` without calls puts it back to sleep. Idleness is checked once
 * per period against the limiter's admitted-call count, never timed per call.
 */
import { createActor, type Actor } from "xstate";
import { readCatalogSnapshot, SnapshotWriter } from "../catalog/snapshot.js";
import { EmbeddingIndex, embeddingText, fuseHits, type EmbedFunction } from "../catalog/embedding-index.js";
import {
  RELEVANCE_CUTOFF,
  ToolSearchIndex,
  withUnavailable,
  type ToolSearchHit,
  type ToolSearchOptions,
  type ToolSearchResults,
  type UnavailableServer,
} from "../catalog/search-index.js";

export type { ToolSearchOptions, ToolSearchResults } from "../catalog/search-index.js";
import type { Tool } from "../client/types.js";
import { ConfigError } from "../jsonrpc/errors.js";
import type { ChildEmitted } from "../supervisor/child-machine.js";
import { supervisorMachine } from "../supervisor/supervisor-machine.js";
import { DEFAULT_START_TIMEOUT_MS } from "./board-options.js";
import { parseQualified } from "./namespacing.js";
import type { ServerRuntime } from "./server-runtime.js";

/** What the catalog needs of the board's settings. */
export interface CatalogSettings {
  readonly separator: string;
  readonly catalogFile?: string | undefined;
  readonly startTimeoutMs?: number | undefined;
  readonly embed?: EmbedFunction | undefined;
}

interface Awake {
  supervisor: Actor<typeof supervisorMachine>;
  timer: NodeJS.Timeout | undefined;
  /** The limiter's admitted count when the idle timer was armed. */
  seen: number;
  /** Being put to sleep: its events no longer reach the board. */
  sleeping: Promise<void> | undefined;
  /** A call came while it went to sleep: wake it again once asleep. */
  wakeAgain: boolean;
}

export class BoardCatalog {
  private readonly index = new ToolSearchIndex();
  private indexed: readonly Tool[] | undefined;
  /** The servers with tools in the index. */
  private indexedServers = new Set<string>();
  private readonly embeddings: EmbeddingIndex | undefined;
  /** What the embedding index is given for the indexed list: one array per list, so it embeds once. */
  private embedDocuments: Array<{ id: string; text: string }> = [];
  private writer: SnapshotWriter | undefined;
  private loading: Promise<void> | undefined;
  private readonly awake = new Map<ServerRuntime, Awake>();
  private closed = false;

  private readonly file: string | undefined;

  constructor(
    private readonly runtimes: ReadonlyMap<string, ServerRuntime>,
    private readonly settings: CatalogSettings,
    /** The board's handler of its supervisor's events. */
    private readonly relayToBoard: (event: ChildEmitted) => void,
    /** Where a failure nobody awaits goes: the board's `error` event. */
    private readonly board: { emit(event: "error", payload: { error: Error }): unknown },
  ) {
    const file = settings.catalogFile;
    if (file !== undefined && (typeof file !== "string" || file === "")) {
      throw new ConfigError(`expected the path of a JSON file (a string), found ${JSON.stringify(file)}`, { field: "catalogFile" });
    }
    this.file = file;
    if (settings.embed !== undefined && typeof settings.embed !== "function") {
      throw new ConfigError(`expected a function (texts: string[]) => Promise<number[][]>, found ${typeof settings.embed}`, { field: "embed" });
    }
    this.embeddings = settings.embed === undefined ? undefined : new EmbeddingIndex(settings.embed);
  }

  private reportError(error: Error): void {
    this.board.emit("error", { error });
  }

  private startTimeoutOf(runtime: ServerRuntime): number {
    return runtime.entry.startTimeoutMs ?? this.settings.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  }

  /** Reads the snapshot once: servers not listed yet get their last known tools. */
  load(): Promise<void> {
    if (this.file === undefined) return Promise.resolve();
    return (this.loading ??= readCatalogSnapshot(this.file).then((snapshot) => {
      this.writer = new SnapshotWriter(this.file!, snapshot, (error) => this.reportError(error));
      for (const [name, entry] of Object.entries(snapshot.servers)) this.runtimes.get(name)?.tools.seed(entry.tools);
    }));
  }

  /** A server listed its tools: the snapshot follows. */
  listed(runtime: ServerRuntime, tools: readonly Tool[]): void {
    this.writer?.update(runtime.name, tools);
  }

  /** Resolves once the snapshot file holds every listing so far. */
  flush(): Promise<void> {
    return this.writer?.flush() ?? Promise.resolve();
  }

  /**
   * Searches `tools` (the board's current list, qualified names), re-indexed when the list changed.
   * With an `embed` function the full-text hits and the nearest tools by meaning are fused (RRF); a
   * failing `embed` is reported as an `error` event and the search answers from the full-text index.
   */
  async search(tools: readonly Tool[], query: string, options: ToolSearchOptions = {}): Promise<ToolSearchResults> {
    if (typeof query !== "string") throw new ConfigError(`expected a string, found ${typeof query}`, { field: "query" });
    const limit = options.limit ?? 5;
    if (!(Number.isInteger(limit) && limit >= 1)) throw new ConfigError(`expected a whole number >= 1, found ${String(limit)}`, { field: "limit" });
    const cutoff = options.cutoff ?? RELEVANCE_CUTOFF;
    if (!(typeof cutoff === "number" && cutoff >= 0 && cutoff <= 1))
      throw new ConfigError(`expected a number from 0 to 1, found ${String(cutoff)}`, { field: "cutoff" });
    if (tools !== this.indexed) this.reindex(tools);
    const hits = this.index.search(query, { limit, cutoff });
    const unavailable = this.unavailable();
    if (this.embeddings === undefined || query.trim() === "") return withUnavailable(hits, unavailable);
    try {
      return withUnavailable(await this.hybrid(this.embeddings, hits, query, limit), unavailable);
    } catch (error) {
      this.reportError(new Error(`tool search: the embed function failed, answering from the full-text index: ${(error as Error).message}`, { cause: error }));
      return withUnavailable(hits, unavailable);
    }
  }

  private async hybrid(embeddings: EmbeddingIndex, hits: ToolSearchHit[], query: string, limit: number): Promise<ToolSearchHit[]> {
    await embeddings.sync(this.embedDocuments);
    return fuseHits(hits, await embeddings.nearest(query, limit), limit, (name) => this.index.hitOf(name));
  }

  /** Servers whose tools the index lacks and that are not up: down, restarting, still starting. */
  private unavailable(): UnavailableServer[] {
    const unavailable: UnavailableServer[] = [];
    for (const [server, runtime] of this.runtimes) {
      if (this.indexedServers.has(server) || runtime.state === "up" || runtime.state === "disabled") continue;
      unavailable.push({ server, state: runtime.state, reason: runtime.downReason ?? runtime.lastError?.message });
    }
    return unavailable;
  }

  private reindex(tools: readonly Tool[]): void {
    const perServer = new Map<string, Array<{ name: string; tool: Tool }>>();
    for (const tool of tools) {
      const parsed = parseQualified(tool.name, this.settings.separator, this.runtimes);
      if (parsed === undefined) continue;
      let list = perServer.get(parsed.server);
      if (list === undefined) perServer.set(parsed.server, (list = []));
      list.push({ name: tool.name, tool: { ...tool, name: parsed.tool } });
    }
    for (const server of this.runtimes.keys()) {
      const list = perServer.get(server);
      if (list === undefined) this.index.removeServer(server);
      else this.index.setServer(server, list, this.runtimes.get(server)?.client?.instructions);
    }
    this.indexed = tools;
    this.indexedServers = new Set(perServer.keys());
    if (this.embeddings !== undefined) this.embedDocuments = tools.map((tool) => ({ id: tool.name, text: embeddingText(tool) }));
  }

  // ---- lazy servers ------------------------------------------------------------------------------

  /**
   * A lazy server without a known tool list: the fleet's current copy of its tools when there is one
   * (so it stays asleep), else the first listing starts it and waits for it (bounded).
   */
  async firstListing(runtime: ServerRuntime): Promise<void> {
    const shared = await runtime.fleetLists?.kept("tools");
    if (shared?.items !== undefined) return runtime.tools.seed(shared.items as Tool[]);
    this.wake(runtime);
    try {
      await runtime.whenUp(this.startTimeoutOf(runtime));
    } catch (error) {
      this.reportError(error as Error);
    }
  }

  /** Starts a lazy server that is asleep; concurrent callers start it once. */
  wake(runtime: ServerRuntime): void {
    if (this.closed || runtime.entry.lazy !== true) return;
    const awake = this.awake.get(runtime);
    if (awake !== undefined) {
      if (awake.sleeping !== undefined) awake.wakeAgain = true;
      return;
    }
    runtime.state = "starting";
    const supervisor = createActor(supervisorMachine, {
      input: {
        children: [{ name: runtime.name, work: runtime.work, restart: runtime.entry.restart, startTimeoutMs: this.startTimeoutOf(runtime) }],
        relay: (event) => this.relay(runtime, event),
      },
    });
    this.awake.set(runtime, { supervisor, timer: undefined, seen: runtime.limiter.admitted, sleeping: undefined, wakeAgain: false });
    supervisor.start();
  }

  /**
   * An operator's restart (`board.restart`) of a lazy server: it is not a child of the board's
   * supervisor, so its own supervisor restarts it (a `down` one too); asleep, it is started. False for
   * a server that is not lazy.
   */
  restart(runtime: ServerRuntime): boolean {
    if (runtime.entry.lazy !== true) return false;
    const awake = this.awake.get(runtime);
    if (awake === undefined || awake.sleeping !== undefined) this.wake(runtime);
    else awake.supervisor.send({ type: "RESTART", name: runtime.name });
    return true;
  }

  private relay(runtime: ServerRuntime, event: ChildEmitted): void {
    const awake = this.awake.get(runtime);
    if (awake?.sleeping !== undefined) return;
    this.relayToBoard(event);
    if (event.type === "child.up" && awake !== undefined && runtime.entry.idleMs !== undefined) this.arm(runtime, awake, runtime.entry.idleMs);
  }

  private arm(runtime: ServerRuntime, awake: Awake, idleMs: number): void {
    if (awake.timer !== undefined) clearTimeout(awake.timer);
    awake.seen = runtime.limiter.admitted;
    awake.timer = setTimeout(() => {
      awake.timer = undefined;
      // Calls waiting for it count too: one that waits out a restart's backoff has not been admitted yet.
      const busy = runtime.limiter.pending > 0 || runtime.anyoneWaits() || runtime.limiter.admitted !== awake.seen;
      if (busy) this.arm(runtime, awake, idleMs);
      else void this.sleep(runtime, awake);
    }, idleMs);
    awake.timer.unref();
  }

  /** Stops a lazy server's supervisor and marks it asleep (`idle`); a call that came meanwhile wakes it. */
  private sleep(runtime: ServerRuntime, awake: Awake): Promise<void> {
    if (awake.timer !== undefined) clearTimeout(awake.timer);
    awake.timer = undefined;
    runtime.state = "idle";
    awake.sleeping = stopped(awake.supervisor).then(() => {
      this.awake.delete(runtime);
      if (this.closed) return;
      runtime.state = "idle";
      if (awake.wakeAgain) this.wake(runtime);
    });
    return awake.sleeping;
  }

  /** The board stops: every awake lazy server stops with it. */
  async stop(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.awake.entries()].map(([runtime, awake]) => {
        if (awake.timer !== undefined) clearTimeout(awake.timer);
        if (awake.sleeping !== undefined) return awake.sleeping;
        return stopped(awake.supervisor).then(() => runtime.markStopped());
      }),
    );
    this.awake.clear();
    await this.flush();
  }
}

function stopped(supervisor: Actor<typeof supervisorMachine>): Promise<void> {
  const done = new Promise<void>((resolve) => supervisor.subscribe({ complete: resolve, error: () => resolve() }));
  supervisor.send({ type: "STOP" });
  return done;
}
