/**
 * The instrumentation of one connection: an `OutgoingSpan` per message, and
 * `mcp.client.session.duration` from the moment a session is ready until it ends (closed, failed, or
 * replaced by a new session after the server forgot the old one). In the 2026 era, which has no
 * sessions, that is the connection's life.
 */
import type { ConnectionObserver, MessageObserver, SessionFacts } from "../connection/instrumentation.js";
import type { ConnectionState } from "../connection/machine.js";
import type { Params } from "../connection/eras/dialect.js";
import type { JsonRpcId } from "../jsonrpc/messages.js";
import { OutgoingSpan } from "./outgoing-span.js";
import { ATTR_ERROR_TYPE } from "./semconv.js";
import { SessionAttributeCache } from "./session-attributes.js";
import type { Signals } from "./signals.js";

const SESSION_ENDS: ReadonlySet<ConnectionState> = new Set(["initializing", "closing", "closed", "failed"]);

export class ConnectionTelemetry implements ConnectionObserver {
  private readonly session: SessionAttributeCache;
  private sessionStarted: number | undefined;

  constructor(
    private readonly signals: Signals,
    facts: SessionFacts,
  ) {
    this.session = new SessionAttributeCache(facts);
  }

  outgoing(method: string, id: JsonRpcId | undefined, params: Params | undefined): MessageObserver | undefined {
    try {
      return new OutgoingSpan(this.signals, this.session, method, id, params);
    } catch {
      // A broken tracer must not stop the request: it goes out unobserved.
      return undefined;
    }
  }

  stateChanged(state: ConnectionState, error: Error | undefined): void {
    if (state === "ready") {
      this.sessionStarted ??= performance.now();
      return;
    }
    if (this.sessionStarted === undefined || !SESSION_ENDS.has(state)) return;
    const seconds = (performance.now() - this.sessionStarted) / 1000;
    this.sessionStarted = undefined;
    try {
      const attributes = this.session.current().metric;
      this.signals.sessionDuration.record(seconds, error === undefined ? attributes : Object.assign({ [ATTR_ERROR_TYPE]: error.name }, attributes));
    } catch {
      // Telemetry never breaks a connection.
    }
  }
}
