/**
 * The log messages a 2026 client's call sends while no request of the client is open (between its
 * input rounds), kept for the next round's stream (src/gateway/suspended-call.ts). Bounded by count
 * and by size, oldest dropped first: a call that logs in a loop while its client thinks, or logs
 * large data, must not grow the gateway. The next round is told how many were dropped.
 */
import type { LogParams } from "../connection/events.js";

/** Log messages a call keeps between two rounds, at most. */
export const MAX_HELD_LOGS = 100;
/** Their size as JSON, at most: 1 MiB. */
export const MAX_HELD_LOG_BYTES = 1 << 20;

export class HeldLogs {
  /** Oldest first, each with its size as JSON. */
  private readonly held: { params: LogParams; size: number }[] = [];
  private bytes = 0;
  private dropped = 0;

  hold(params: LogParams): void {
    const size = sizeOf(params);
    this.held.push({ params, size });
    this.bytes += size;
    while (this.held.length > MAX_HELD_LOGS || this.bytes > MAX_HELD_LOG_BYTES) {
      this.bytes -= this.held.shift()!.size;
      this.dropped++;
    }
  }

  /** Gives what is held to `logTo`, oldest first, after a warning that counts what was dropped. */
  drainTo(logTo: (params: LogParams) => void, what: string): void {
    if (this.dropped > 0)
      logTo({
        level: "warning",
        logger: "mcp-switchboard",
        data: `${this.dropped} earlier log messages of ${what} were dropped: the gateway holds at most ${MAX_HELD_LOGS} messages (1 MiB) between rounds`,
      });
    for (const { params } of this.held) logTo(params);
  }
}

/** Its length as JSON (near its bytes on the wire); one that cannot be written as JSON could never be sent, so it counts as too big. */
function sizeOf(params: LogParams): number {
  try {
    return JSON.stringify(params).length;
  } catch {
    return MAX_HELD_LOG_BYTES + 1;
  }
}
