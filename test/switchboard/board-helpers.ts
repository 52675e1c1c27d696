/** What the Switchboard tests share: the bundled echo server, fast restarts, and boards stopped after each test. */
import { fileURLToPath } from "node:url";
import { afterEach, expect } from "vitest";
import { Switchboard, type SwitchboardInit } from "../../src/switchboard/switchboard.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import type { StdioTransport } from "../../src/transports/stdio.js";

export const echoServer = fileURLToPath(new URL("../../examples/servers/echo-server.mjs", import.meta.url));
export const node = process.execPath;
export const fastRestart = { maxRestarts: 5, withinMs: 10_000, backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0 } };

/** A board maker whose boards are stopped after each test; then no server process may be left. */
export function boardsAfterEach(): (init: SwitchboardInit) => Switchboard {
  let boards: Switchboard[] = [];
  afterEach(async () => {
    await Promise.all(boards.map((b) => b.stop()));
    boards = [];
    expect(liveProcessCount()).toBe(0);
  });
  return (init) => {
    const created = new Switchboard(init);
    boards.push(created);
    return created;
  };
}

/** The pid of a stdio server's current process. */
export function pidOf(b: Switchboard, name: string): number {
  return (b.client(name)!.connection.transport as StdioTransport).pid!;
}
