/**
 * The live observer page of a Switchboard: `observe(board, options)`, also reachable as
 * `board.observe(options)` through the factory this module registers as it loads (the package entry
 * imports it; see src/switchboard/observation.ts for why the board cannot import it).
 */
import type { AgentEvents } from "../agents/events.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { provideObserver, type BoardObserver, type ObserveOptions } from "../switchboard/observation.js";
import type { Switchboard } from "../switchboard/switchboard.js";
import { BoardModel } from "./observer.js";
import { checkPort, DEFAULT_HOST, isLoopback, ObserverServer } from "./server.js";
import { Redactor, type Snapshot } from "./view.js";

export type { Snapshot, ServerView, CallView, LifecycleView, Session } from "./view.js";
export type { Series } from "./stats.js";
export type { RunView } from "./agent-runs.js";
export { secretsOf } from "./view.js";

/** A running observer: its address, the snapshot its page is sent, and events for agent runs to show. */
export class Observer implements BoardObserver {
  readonly url: string;
  readonly port: number;
  private closed: Promise<void> | undefined;

  /** @internal Made by `observe()`. */
  constructor(
    private readonly board: Switchboard,
    private readonly model: BoardModel,
    private readonly server: ObserverServer,
    host: string,
  ) {
    this.port = server.port;
    this.url = `http://${host.includes(":") ? `[${host}]` : host}:${this.port}/`;
  }

  /** Pass as runAgent's `events` to show that run (its conversation, turn by turn) on the page. */
  agentEvents(label?: string): AgentEvents {
    return this.model.agentEvents(label);
  }

  /** What an open page is sent now (secrets named in `redact` are already replaced in the page's copy). */
  snapshot(): Snapshot {
    return this.model.snapshot();
  }

  /** How many pages are open. */
  get pages(): number {
    return this.server.pages;
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      if (this.board.callTap === this.model) this.board.callTap = undefined;
      this.model.close();
      await this.server.close();
    })();
    return this.closed;
  }
}

/** Serves a live page of `board` on 127.0.0.1 (port 7331 unless told; 0 picks a free one). */
export async function observe(board: Switchboard, options: ObserveOptions = {}): Promise<Observer> {
  const port = checkPort(options.port);
  const host = options.host ?? DEFAULT_HOST;
  if (typeof host !== "string" || host === "") throw new ConfigError(`expected an address to bind, found ${String(host)}`, { field: "host" });
  if (board.callTap !== undefined) throw new ConfigError("this Switchboard is already observed: close that observer first");
  const redactor = new Redactor(options.redact ?? []);
  let model: BoardModel | undefined;
  const server = new ObserverServer(() => redactor.apply(JSON.stringify(model!.snapshot())));
  model = new BoardModel(board, options.captureToolContent === true, () => server.changed());
  if (!isLoopback(host)) {
    process.emitWarning(`The observer listens on ${host}: anyone who can reach it sees the board (no authentication). Use 127.0.0.1 unless you mean it.`, {
      code: "MCP_SWITCHBOARD_OBSERVER_HOST",
    });
  }
  try {
    await server.listen(port, host);
  } catch (error) {
    model.close();
    throw error;
  }
  board.callTap = model;
  return new Observer(board, model, server, host);
}

provideObserver(observe);
