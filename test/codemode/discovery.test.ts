/**
 * Discovery, not a dump: on the catalog of the real npm servers plus the synthetic one (test/catalog/),
 * `run_code`'s description stays within 8,000 characters and a `search_tools` beside it answers with
 * the TypeScript declarations of the tools found; a small board still gets every declaration inline.
 * `runAgent({ codeMode, toolLoading: "deferred" })` offers `run_code` on every turn, its searches answer
 * with declarations, and the code's calls go through the board.
 */
import { afterEach, describe, expect, it } from "vitest";
import { codeMode, runAgent, Switchboard, type AgentModel, type Tool } from "../../src/index.js";
import { MAX_DESCRIPTION_CHARS } from "../../src/codemode/discovery.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { acmeBoard } from "../catalog/acme-board.js";
import { catalogServers } from "../catalog/queries.js";
import { codeBoards } from "./helpers.js";

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  cleanups = [];
});
const boards = codeBoards();

/** Every catalog server on one board, each tool answering "did <tool> <args>". */
async function catalogBoard(): Promise<{ board: Switchboard; count: number }> {
  const servers = catalogServers();
  const entries = Object.fromEntries(
    Object.entries(servers).map(([name, tools]) => {
      const server = new ScriptedServer()
        .on("tools/list", () => ({ tools }))
        .on("tools/call", (request) => {
          const params = request.params as { name: string; arguments?: unknown };
          return { content: [{ type: "text", text: `did ${params.name} ${JSON.stringify(params.arguments ?? {})}` }] };
        });
      return [name, { transport: () => server.clientSide, protocol: "legacy" as const }];
    }),
  );
  const board = new Switchboard({ servers: entries });
  cleanups.push(() => board.stop());
  await board.start();
  return { board, count: Object.values(servers).reduce((sum, tools) => sum + tools.length, 0) };
}

describe("discovery", () => {
  it("a 150-tool catalog: run_code's description fits in 8,000 characters, and search_tools answers with declarations", async () => {
    const { board, count } = await catalogBoard();
    expect(count).toBeGreaterThanOrEqual(150);
    const code = codeMode(board, { workers: 2 });
    expect((await code.declarations()).length).toBeGreaterThan(50_000);
    const runCode = await code.tool();
    expect(runCode.description!.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS);
    expect(runCode.description).toMatch(/search_tools/);
    expect((await code.listTools()).map((tool) => tool.name)).toEqual(["run_code", "search_tools"]);
    const found = await code.callTool("search_tools", { query: "cancel a subscription", limit: 3 });
    const text = (found.content[0] as { text: string }).text;
    expect(text).toMatch(/tools\.acme\.subscription_cancel/);
    expect(text).toMatch(/declare const tools: \{[\s\S]*subscription_cancel\(args/);
    const bad = await code.callTool("search_tools", {});
    expect(bad.isError).toBe(true);
    const out = await code.run(`return await tools.acme.subscription_cancel({ id: "sub_3" });`);
    expect(out.value).toBe('did subscription_cancel {"id":"sub_3"}');
  });

  it("a small board: every declaration inline, run_code alone", async () => {
    const { board } = await boards();
    const code = codeMode(board, { workers: 2 });
    expect((await code.tool()).description).toContain(await code.declarations());
    expect((await code.listTools()).map((tool) => tool.name)).toEqual(["run_code"]);
  });

  it("runAgent with codeMode and deferred loading: run_code on every turn, the search answers with declarations", async () => {
    const board = await acmeBoard(cleanups);
    const offered: string[][] = [];
    const answers: string[] = [];
    const model: AgentModel = async ({ tools, turn, messages }) => {
      offered.push(tools.map((tool: Tool) => tool.name));
      const last = messages.at(-1);
      if (last?.role === "tool") for (const block of last.content) if (block.type === "tool_result") answers.push(JSON.stringify(block.content));
      if (turn === 1)
        return { message: { role: "assistant", content: [{ type: "tool_use", id: "s", name: "search_tools", input: { query: "cancel a subscription" } }] } };
      if (turn === 2) {
        const code = `return await Promise.all(["sub_1", "sub_2"].map((id) => tools.acme.subscription_cancel({ id })));`;
        return { message: { role: "assistant", content: [{ type: "tool_use", id: "r", name: "run_code", input: { code } }] } };
      }
      return { message: { role: "assistant", content: [{ type: "text", text: "done" }] } };
    };
    const result = await runAgent({ model, host: board, messages: "Cancel two", codeMode: { workers: 2 }, toolLoading: "deferred" });
    expect(result.text).toBe("done");
    expect(offered[0].sort()).toEqual(["run_code", "search_tools"]);
    for (const names of offered) expect(names).toContain("run_code");
    expect(answers[0]).toMatch(/declare const tools/);
    expect(answers[1]).toContain("did subscription_cancel");
    expect(result.steps[0].toolLoading?.searches[0]?.found).toContain("acme__subscription_cancel");
    expect(result.steps[1].toolCalls[0].code?.calls).toHaveLength(2);
  });
});
