/**
 * What the agent tests share: a Switchboard of real MCP servers over stdio (the bundled echo server on
 * the official SDK's McpServer, and server-everything), the scripted model server, and a three-round
 * script of parallel tool calls on both servers. Everything is closed after each test.
 */
import { fileURLToPath } from "node:url";
import { afterEach, expect } from "vitest";
import { Switchboard, type SwitchboardInit } from "../../src/index.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";
import { waitFor } from "../helpers/processes.js";
import { startModelServer, type ModelServer, type Script, type ScriptedTurn } from "../fixtures/model-server.js";

export const node = process.execPath;
export const echoServer = fileURLToPath(new URL("../../examples/servers/echo-server.mjs", import.meta.url));
export const everything = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
export const cancelServer = fileURLToPath(new URL("./fixtures/cancel-server.mjs", import.meta.url));

/** Boards and model servers opened in a test are closed after it; then no server process may be left. */
export interface AgentFixtures {
  board(init: SwitchboardInit): Promise<Switchboard>;
  modelServer(script: Script): Promise<ModelServer>;
}

export function agentFixtures(): AgentFixtures {
  let boards: Switchboard[] = [];
  let servers: ModelServer[] = [];
  afterEach(async () => {
    await Promise.all(boards.map((b) => b.stop()));
    await Promise.all(servers.map((s) => s.close()));
    boards = [];
    servers = [];
    expect(liveProcessCount()).toBe(0);
  });
  return {
    board: async (init) => {
      const board = new Switchboard(init);
      boards.push(board);
      await board.start();
      await board.listTools();
      return board;
    },
    modelServer: async (script) => {
      const server = await startModelServer(script);
      servers.push(server);
      return server;
    },
  };
}

/** The echo server as "math" and server-everything as "everything". */
export const twoServers: SwitchboardInit = {
  servers: {
    math: { command: node, args: [echoServer] },
    everything: { command: node, args: [everything, "stdio"] },
  },
  client: { protocol: "legacy" },
};

/**
 * Three rounds of parallel tool calls on both servers, then an answer. Round 2 asks server-everything
 * for its tiny image, so media in tool results is exercised too.
 */
export const threeRounds: ScriptedTurn[] = [
  {
    thinking: "I need two sums and an echo.",
    toolCalls: [
      { name: "math__add", arguments: { a: 1, b: 2 } },
      { name: "math__add", arguments: { a: 3, b: 4 } },
      { name: "everything__echo", arguments: { message: "hello" } },
    ],
    usage: { input: 101, output: 11, cacheRead: 7, reasoning: 3 },
  },
  {
    text: "Now the next round.",
    toolCalls: [
      { name: "everything__get-sum", arguments: { a: 5, b: 6 } },
      { name: "math__echo", arguments: { text: "round two" } },
      { name: "everything__get-tiny-image", arguments: {} },
    ],
    usage: { input: 202, output: 22, cacheWrite: 13 },
  },
  {
    toolCalls: [
      { name: "math__add", arguments: { a: 10, b: 20 } },
      { name: "math__echo", arguments: { text: "round three" } },
    ],
    usage: { input: 303, output: 33 },
  },
  { text: "The sums are 3, 7, 11 and 30.", usage: { input: 404, output: 44, cacheRead: 100 } },
];

/** The texts of a tool message's results, in order. */
export function resultTexts(content: ReadonlyArray<{ type: string; content?: ReadonlyArray<{ type: string; text?: string }> }>): string[] {
  return content.map((block) => (block.content ?? []).map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join(""));
}

/** A board with the cancel server as "slow", and a wait for what it logs ("started a", "cancelled a"). */
export async function cancelBoard(
  fixtures: AgentFixtures,
): Promise<{ board: Switchboard; logged(word: "started" | "cancelled", ...tags: string[]): Promise<void> }> {
  const board = await fixtures.board({ servers: { slow: { command: node, args: [cancelServer] } }, client: { protocol: "legacy" } });
  let stderr = "";
  board.on("stderr", ({ text }) => (stderr += text));
  return { board, logged: (word, ...tags) => waitFor(() => tags.every((tag) => stderr.includes(`${word} ${tag}`)), 10_000) };
}

/** The `role: "tool"` messages of a Chat Completions request body the model server received. */
export function sentToolMessages(body: Record<string, unknown>): Array<{ role: string; content: unknown; tool_call_id?: string }> {
  return (body.messages as Array<{ role: string; content: unknown; tool_call_id?: string }>).filter((m) => m.role === "tool");
}

/**
 * A framework's run over the cancel server, aborted while the model's two `slow__wait` calls are in
 * flight: the run rejects, the server logs both cancellations, and no call stays in flight.
 */
export async function abortMidCalls(
  fixtures: AgentFixtures,
  start: (board: Switchboard, baseURL: string, signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  const { board, logged } = await cancelBoard(fixtures);
  const server = await fixtures.modelServer([{ toolCalls: ["a", "b"].map((tag) => ({ name: "slow__wait", arguments: { tag } })) }, { text: "never" }]);
  const controller = new AbortController();
  const running = start(board, server.openaiBaseURL, controller.signal);
  await logged("started", "a", "b");
  controller.abort();
  await expect(running).rejects.toThrow();
  await logged("cancelled", "a", "b");
  expect(board.status().slow.inFlight).toBe(0);
  expect(server.requests).toHaveLength(1);
}
