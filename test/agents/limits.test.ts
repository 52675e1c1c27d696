/**
 * The run's limits with the real clients and real MCP servers: `maxTurns` returns the partial trace,
 * an abort cancels the model call or every MCP call in flight (the server sees each cancellation and
 * no call stays in flight), a killed server with a fallback is seen only in the trace's attempts, and
 * `approve` refusals (the run's and the Switchboard's) reach the model as error results.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { anthropicModel, openAIChatModel, openAIResponsesModel, runAgent, type AgentApprovalRequest, type AgentModel } from "../../src/index.js";
import type { ModelServer } from "../fixtures/model-server.js";
import { waitFor } from "../helpers/processes.js";
import { agentFixtures, cancelBoard, echoServer, node, resultTexts, sentToolMessages, threeRounds, twoServers } from "./helpers.js";

const fixtures = agentFixtures();
const openai = (server: ModelServer) => new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 });
const chat = (server: ModelServer) => openAIChatModel(openai(server), { model: "gpt-test" });

describe("maxTurns", () => {
  it("maxTurns: 2 returns partial: true with both rounds' tool results", async () => {
    const board = await fixtures.board(twoServers);
    const server = await fixtures.modelServer(threeRounds);
    const result = await runAgent({ model: chat(server), host: board, messages: "Add some numbers.", maxTurns: 2 });
    expect(result.stopReason).toBe("max_turns");
    expect(result.partial).toBe(true);
    expect(result.turns).toBe(2);
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
    expect(resultTexts(result.messages[2].content as never)).toEqual(["3", "7", "Echo: hello"]);
    expect(resultTexts(result.messages[4].content as never).slice(0, 2)).toEqual(["The sum of 5 and 6 is 11.", "round two"]);
    expect(result.text).toBe("Now the next round.");
    expect(result.usage).toEqual({ inputTokens: 303, outputTokens: 33, totalTokens: 336, cacheReadTokens: 7, reasoningTokens: 3 });
    expect(server.requests).toHaveLength(2);
  });
});

describe("abort", () => {
  it("an abort mid-turn cancels every MCP call in flight and leaves none pending", async () => {
    const { board, logged } = await cancelBoard(fixtures);
    const server = await fixtures.modelServer([
      { toolCalls: [{ name: "slow__quick", arguments: { tag: "first" } }] },
      { toolCalls: ["a", "b", "c"].map((tag) => ({ name: "slow__wait", arguments: { tag } })) },
    ]);
    const controller = new AbortController();
    const running = runAgent({ model: chat(server), host: board, messages: "Wait.", signal: controller.signal });
    await logged("started", "a", "b", "c");
    expect(board.status().slow.inFlight).toBe(3);
    controller.abort();
    const result = await running;

    expect(result.stopReason).toBe("aborted");
    expect(result.partial).toBe(true);
    expect(result.turns).toBe(2);
    expect(board.status().slow.inFlight).toBe(0);
    // The server was told: each call's cancellation reached it.
    await logged("cancelled", "a", "b", "c");
    // The trace stays complete (every tool_use has its result), so it can be continued.
    const last = result.messages[result.messages.length - 1];
    expect(last.role).toBe("tool");
    expect(last.content).toEqual(
      ["call_2_0", "call_2_1", "call_2_2"].map((toolUseId) => ({
        type: "tool_result",
        toolUseId,
        isError: true,
        content: [{ type: "text", text: "Cancelled: the run was aborted before slow__wait answered" }],
      })),
    );
    expect(result.steps[1].toolCalls.map((call) => call.failure)).toEqual(["aborted", "aborted", "aborted"]);
    expect(server.requests).toHaveLength(2);
  });

  const models: Record<string, (server: ModelServer) => AgentModel> = {
    "OpenAI Chat Completions": chat,
    "OpenAI Responses": (server) => openAIResponsesModel(openai(server), { model: "gpt-test" }),
    Anthropic: (server) => anthropicModel(new Anthropic({ apiKey: "test", baseURL: server.anthropicBaseURL, maxRetries: 0 }), { model: "claude-test" }),
  };
  it.each(Object.keys(models))("an abort during the %s call cancels the HTTP request", async (provider) => {
    const { board } = await cancelBoard(fixtures);
    const server = await fixtures.modelServer([{ toolCalls: [{ name: "slow__quick", arguments: { tag: "one" } }] }, { hang: true }]);
    const controller = new AbortController();
    const running = runAgent({ model: models[provider](server), host: board, messages: "Go.", signal: controller.signal });
    await server.arrived(1);
    controller.abort();
    const result = await running;
    expect(result.stopReason).toBe("aborted");
    expect(result.turns).toBe(1);
    expect(result.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(resultTexts(result.messages[2].content as never)).toEqual(["quick one"]);
    await waitFor(() => server.requests[1].aborted, 5000);
  });

  it("a signal aborted before the start ends the run at once without calling the model", async () => {
    const { board } = await cancelBoard(fixtures);
    const server = await fixtures.modelServer([{ text: "never" }]);
    const result = await runAgent({ model: chat(server), host: board, messages: "Go.", signal: AbortSignal.abort() });
    expect(result).toMatchObject({ stopReason: "aborted", partial: true, turns: 0, text: "" });
    expect(server.requests).toHaveLength(0);
  });
});

describe("fallbacks", () => {
  it("a killed server with a fallback is invisible to the model except in the trace's attempts", async () => {
    const slowRestart = { maxRestarts: 5, withinMs: 60_000, backoff: { initialMs: 60_000, maxMs: 60_000, factor: 2, jitter: 0 } };
    const board = await fixtures.board({
      servers: {
        primary: { command: node, args: [echoServer], fallbacks: ["backup"], restart: slowRestart },
        backup: { command: node, args: [echoServer] },
      },
      client: { protocol: "legacy" },
    });
    const server = await fixtures.modelServer([
      {
        toolCalls: [
          { name: "primary__add", arguments: { a: 1, b: 2 } },
          { name: "primary__add", arguments: { a: 3, b: 4 } },
        ],
      },
      {
        toolCalls: [
          { name: "primary__add", arguments: { a: 5, b: 6 } },
          { name: "primary__echo", arguments: { text: "still here" } },
        ],
      },
      { text: "done" },
    ]);
    const pid = Number(((await board.callTool("primary__pid")).content[0] as { text: string }).text);
    const result = await runAgent({
      model: chat(server),
      host: board,
      messages: "Add.",
      onStep: async (step) => {
        if (step.turn !== 1) return;
        process.kill(pid, "SIGKILL");
        await waitFor(() => board.status().primary.state !== "up", 10_000);
      },
    });

    expect(result.stopReason).toBe("end");
    expect(resultTexts(result.messages[4].content as never)).toEqual(["11", "still here"]);
    // What the model got in round 2 is what the primary would have said: no error, no trace of the kill.
    expect(sentToolMessages(server.requests[2].body).map((m) => m.content)).toEqual(["3", "7", "11", "still here"]);
    expect(result.steps[0].toolCalls.map((call) => call.attempts)).toEqual([[{ server: "primary" }], [{ server: "primary" }]]);
    for (const call of result.steps[1].toolCalls) {
      expect(call.server).toBe("backup");
      expect(call.isError).toBe(false);
      expect(call.attempts).toEqual([
        { server: "primary", reason: expect.stringMatching(/^server (restarting|starting)$/), error: expect.any(String) },
        { server: "backup" },
      ]);
    }
  });
});

describe("approve", () => {
  it("a refusal is an error result; the run's approve and the Switchboard's approve hook must both allow", async () => {
    const asked: AgentApprovalRequest[] = [];
    const board = await fixtures.board({
      servers: { math: { command: node, args: [echoServer] } },
      client: { protocol: "legacy" },
      hooks: { approve: ({ tool }) => (tool === "add" ? { allow: false, reason: "the board says no sums" } : true) },
    });
    const server = await fixtures.modelServer([
      {
        toolCalls: [
          { name: "math__echo", arguments: { text: "secret" } },
          { name: "math__add", arguments: { a: 1, b: 2 } },
          { name: "math__idempotent_read", arguments: {} },
        ],
      },
      { text: "ok" },
    ]);
    const result = await runAgent({
      model: chat(server),
      host: board,
      messages: "Go.",
      approve: (request) => {
        asked.push(request);
        return request.tool === "echo" ? { allow: false, reason: "no echoing secrets" } : true;
      },
    });
    expect(asked.find((r) => r.tool === "echo")).toEqual({
      name: "math__echo",
      server: "math",
      tool: "echo",
      input: { text: "secret" },
      annotations: undefined,
    });
    expect(asked.find((r) => r.tool === "idempotent_read")?.annotations).toEqual({ readOnlyHint: true });
    const results = result.messages[2].content;
    expect(results.map((b) => b.type === "tool_result" && [b.isError, resultTexts([b as never])[0]])).toEqual([
      [true, "Call refused: no echoing secrets"],
      [true, "Call refused: the board says no sums"],
      [false, expect.stringMatching(/^pid \d+$/)],
    ]);
    expect(result.steps[0].toolCalls.map((call) => call.failure)).toEqual(["refused", undefined, undefined]);
    const sent = sentToolMessages(server.requests[1].body).map((m) => m.content);
    expect(sent.slice(0, 2)).toEqual(["Call refused: no echoing secrets", "Call refused: the board says no sums"]);
  });
});
