/**
 * Code mode in an agent run: `runAgent({ codeMode: true })` offers `run_code` (alone, or beside pinned
 * tools), and the trace records the code, the calls it made and its output. The 20-lookup task with a
 * scripted model over the real `openai` client: code mode reaches the same answer with at most 3 model
 * calls and at most 20% of the tokens of plain tool calling.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { openAIChatModel, runAgent } from "../../src/index.js";
import { startModelServer } from "../fixtures/model-server.js";
import { waitFor } from "../helpers/processes.js";
import { expectedAnswer, LOOKUP_CODE, runLookupTask } from "./fixtures/lookup-task.js";
import { codeBoards } from "./helpers.js";

const boards = codeBoards();

describe("runAgent with codeMode", () => {
  it("the 20-lookup task: same answer, at most 3 model calls and at most 20% of the tokens of plain tool calling", async () => {
    const { board } = await boards();
    const plain = await runLookupTask(board, "one per turn");
    const parallel = await runLookupTask(board, "all in one turn");
    const code = await runLookupTask(board, "code mode");
    const answer = expectedAnswer();
    for (const run of [plain, parallel, code]) expect(run.result.text).toBe(`North: ${answer.total} in total; the biggest is ${answer.top}.`);
    // What the model was given to reach it: the records (plain) or the aggregate (code mode).
    const records = plain.result.steps
      .flatMap((step) => step.toolResults?.content ?? [])
      .filter((block) => block.type === "tool_result" && block.structuredContent);
    expect(records).toHaveLength(20);
    const record = code.result.steps[0].toolCalls[0];
    expect(record.code).toMatchObject({ source: LOOKUP_CODE, value: answer, logs: [] });
    expect(record.code!.calls).toHaveLength(21);
    expect(plain.modelCalls).toBe(22);
    expect(parallel.modelCalls).toBe(3);
    expect(code.modelCalls).toBeLessThanOrEqual(3);
    expect(code.tokensSent).toBeLessThanOrEqual(0.2 * plain.tokensSent);
    expect(code.tokensSent).toBeLessThan(parallel.tokensSent);
  });

  it("pinned tools beside run_code; the model's run_code error comes back as an error result", async () => {
    const { board } = await boards();
    const server = await startModelServer([
      {
        toolCalls: [
          { name: "run_code", arguments: { code: "const x = 1;\nawait tools.crm.nope();" } },
          { name: "math__add", arguments: { a: 1, b: 1 } },
        ],
      },
      { text: "done" },
    ]);
    try {
      const model = openAIChatModel(new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 }), { model: "gpt-test" });
      const result = await runAgent({ model, host: board, messages: "go", codeMode: { pinned: ["math__add"], timeoutMs: 5_000 } });
      const offered = (server.requests[0].body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
      expect(offered).toEqual(["math__add", "run_code"].sort());
      const [runCode, add] = result.steps[0].toolCalls;
      expect(runCode).toMatchObject({ name: "run_code", isError: true, code: { error: { name: "ToolError", line: 2 } } });
      expect(add).toMatchObject({ name: "math__add", isError: false, server: "math" });
      const sentBack = JSON.stringify(server.requests[1].body.messages);
      expect(sentBack).toMatch(/unknown tool tools\[\\\\?"crm\\\\?"\]\[\\\\?"nope\\\\?"\]/);
    } finally {
      await server.close();
    }
  });

  it("aborting the agent run interrupts run_code and cancels its calls in flight", async () => {
    const { board, seen } = await boards();
    const server = await startModelServer([
      { toolCalls: [{ name: "run_code", arguments: { code: "return await tools.math.slow({ ms: 20000 });" } }] },
      { text: "never" },
    ]);
    try {
      const model = openAIChatModel(new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 }), { model: "gpt-test" });
      const controller = new AbortController();
      const running = runAgent({ model, host: board, messages: "go", codeMode: true, signal: controller.signal });
      await waitFor(() => seen.running === 1, 10_000);
      controller.abort();
      const result = await running;
      expect(result.stopReason).toBe("aborted");
      expect(result.steps[0].toolCalls[0]).toMatchObject({ name: "run_code", isError: true, code: { error: { name: "AbortError" } } });
      await waitFor(() => seen.cancelled.length === 1, 5_000);
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("codeMode needs a Switchboard host", async () => {
    const { board } = await boards();
    const host = { listTools: () => board.listTools(), callTool: board.callTool.bind(board) };
    await expect(runAgent({ model: async () => ({ message: { role: "assistant", content: [] } }), host, messages: "x", codeMode: true })).rejects.toThrow(
      /Switchboard/,
    );
    await expect(
      runAgent({ model: async () => ({ message: { role: "assistant", content: [] } }), host: board, messages: "x", codeMode: 3 as unknown as boolean }),
    ).rejects.toThrow(/codeMode/);
  });
});
