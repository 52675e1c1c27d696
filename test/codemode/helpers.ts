/**
 * What the code-mode tests share: a Switchboard of in-process MCP servers (fixtures/servers.ts), stopped
 * after each test.
 */
import { afterEach } from "vitest";
import type { Switchboard, SwitchboardInit } from "../../src/index.js";
import { startCodeBoard, type CodeBoard, type ServerName } from "./fixtures/servers.js";

export { CUSTOMERS, type Seen, type CodeBoard } from "./fixtures/servers.js";

/** Boards started in a test are stopped after it. */
export function codeBoards(): (init?: Partial<SwitchboardInit>, entries?: Partial<Record<ServerName, Record<string, unknown>>>) => Promise<CodeBoard> {
  let boards: Switchboard[] = [];
  afterEach(async () => {
    await Promise.all(boards.map((b) => b.stop()));
    boards = [];
  });
  return async (init = {}, entries = {}) => {
    const started = await startCodeBoard(init, entries);
    boards.push(started.board);
    return started;
  };
}
