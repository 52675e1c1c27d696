/**
 * runAgent end to end: the real `openai` (v6) and `@anthropic-ai/sdk` clients against the scripted model
 * server on 127.0.0.1, tools on real MCP servers over stdio (the echo server and server-everything),
 * three rounds of parallel tool calls. `openai` 6 is the newest major that runs on Node 20 (7 needs
 * Node 22). Checked: the trace holds every block in order, usage totals are the sums the server
 * reported, the tool results (an image included) reached the model server in the provider's format,
 * and each tool call's server and attempts are recorded.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { anthropicModel, openAIChatModel, openAIResponsesModel, runAgent, type AgentModel, type AgentStep, type TraceMessage } from "../../src/index.js";
import type { ModelServer } from "../fixtures/model-server.js";
import { agentFixtures, resultTexts, threeRounds, twoServers } from "./helpers.js";

const fixtures = agentFixtures();

const models: Record<string, (server: ModelServer) => AgentModel> = {
  "OpenAI Chat Completions": (server) => openAIChatModel(new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 }), { model: "gpt-test" }),
  "OpenAI Responses": (server) => openAIResponsesModel(new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 }), { model: "gpt-test" }),
  Anthropic: (server) =>
    anthropicModel(new Anthropic({ apiKey: "test", baseURL: server.anthropicBaseURL, maxRetries: 0 }), { model: "claude-test", max_tokens: 1024 }),
};

const question: TraceMessage[] = [
  { role: "system", content: [{ type: "text", text: "Use the tools." }] },
  { role: "user", content: [{ type: "text", text: "Add some numbers." }] },
];

describe.each(Object.keys(models))("runAgent with %s", (provider) => {
  it("runs three rounds of parallel tool calls and keeps every block in order", async () => {
    const board = await fixtures.board(twoServers);
    const server = await fixtures.modelServer(threeRounds);
    const steps: AgentStep[] = [];
    const result = await runAgent({ model: models[provider](server), host: board, messages: question, onStep: (step) => void steps.push(step) });

    expect(result.stopReason).toBe("end");
    expect(result.partial).toBe(false);
    expect(result.turns).toBe(4);
    expect(result.text).toBe("The sums are 3, 7, 11 and 30.");
    expect(steps).toEqual(result.steps);

    const shape = result.messages.map((message) => `${message.role}:${message.content.map((block) => block.type).join(",")}`);
    const thinking = provider === "OpenAI Chat Completions" ? "" : "thinking,";
    expect(shape).toEqual([
      "system:text",
      "user:text",
      `assistant:${thinking}tool_use,tool_use,tool_use`,
      "tool:tool_result,tool_result,tool_result",
      "assistant:text,tool_use,tool_use,tool_use",
      "tool:tool_result,tool_result,tool_result",
      "assistant:tool_use,tool_use",
      "tool:tool_result,tool_result",
      "assistant:text",
    ]);
    // MCP names in the trace, results in the order of the calls, each pointing at its call.
    const uses = result.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_use"));
    expect(uses.map((u) => u.type === "tool_use" && u.name)).toEqual([
      "math__add",
      "math__add",
      "everything__echo",
      "everything__get-sum",
      "math__echo",
      "everything__get-tiny-image",
      "math__add",
      "math__echo",
    ]);
    const results = result.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_result"));
    expect(results.map((r) => r.type === "tool_result" && r.toolUseId)).toEqual(uses.map((u) => u.type === "tool_use" && u.id));
    expect(resultTexts(result.messages[3].content as never)).toEqual(["3", "7", "Echo: hello"]);
    expect(resultTexts(result.messages[5].content as never)).toEqual([
      "The sum of 5 and 6 is 11.",
      "round two",
      "Here's the image you requested:[image]The image above is the MCP logo.",
    ]);
    expect(resultTexts(result.messages[7].content as never)).toEqual(["30", "round three"]);
    expect(results.every((r) => r.type === "tool_result" && r.isError === false)).toBe(true);

    // Usage: per turn as the server reported it, and the totals are the sums.
    const reported = threeRounds.map((turn) => turn.usage!);
    const sum = (pick: (u: (typeof reported)[number]) => number | undefined) => reported.reduce((total, u) => total + (pick(u) ?? 0), 0);
    if (provider === "Anthropic") {
      expect(result.usage).toEqual({
        inputTokens: sum((u) => u.input),
        outputTokens: sum((u) => u.output),
        cacheReadTokens: sum((u) => u.cacheRead),
        cacheWriteTokens: sum((u) => u.cacheWrite),
      });
      expect(result.steps[1].usage).toEqual({ inputTokens: 202, outputTokens: 22, cacheReadTokens: 0, cacheWriteTokens: 13 });
    } else {
      expect(result.usage).toEqual({
        inputTokens: sum((u) => u.input),
        outputTokens: sum((u) => u.output),
        totalTokens: sum((u) => u.input + u.output),
        cacheReadTokens: sum((u) => u.cacheRead),
        reasoningTokens: sum((u) => u.reasoning),
      });
      expect(result.steps[0].usage).toEqual({ inputTokens: 101, outputTokens: 11, totalTokens: 112, cacheReadTokens: 7, reasoningTokens: 3 });
    }

    // Per tool call: the server that answered, the attempts, a duration.
    expect(result.steps[0].toolCalls.map((call) => [call.name, call.server, call.tool, call.attempts.map((a) => a.server)])).toEqual([
      ["math__add", "math", "add", ["math"]],
      ["math__add", "math", "add", ["math"]],
      ["everything__echo", "everything", "echo", ["everything"]],
    ]);
    expect(result.steps.flatMap((s) => s.toolCalls).every((call) => call.durationMs >= 0 && !call.isError && call.failure === undefined)).toBe(true);
    expect(result.steps.map((s) => s.toolCalls.length)).toEqual([3, 3, 2, 0]);
  });

  it("sends the tools and every round's results to the model in the provider's format", async () => {
    const board = await fixtures.board(twoServers);
    const server = await fixtures.modelServer(threeRounds);
    await runAgent({ model: models[provider](server), host: board, messages: question });

    expect(server.requests).toHaveLength(4);
    const first = server.requests[0].body;
    const toolNames = (first.tools as Array<{ name?: string; function?: { name: string } }>).map((tool) => tool.name ?? tool.function!.name);
    expect(toolNames).toContain("math__add");
    expect(toolNames).toContain("everything__get-tiny-image");

    const last = server.requests[3].body;
    const image = (await board.callTool("everything__get-tiny-image", {})).content.find((b) => b.type === "image");
    if (provider === "OpenAI Chat Completions") {
      expect(last.messages[0]).toEqual({ role: "system", content: "Use the tools." });
      const tools = (last.messages as Array<{ role: string; tool_call_id?: string; content: string }>).filter((m) => m.role === "tool");
      expect(tools.map((m) => [m.tool_call_id, m.content])).toEqual([
        ["call_1_0", "3"],
        ["call_1_1", "7"],
        ["call_1_2", "Echo: hello"],
        ["call_2_0", "The sum of 5 and 6 is 11."],
        ["call_2_1", "round two"],
        [
          "call_2_2",
          "Here's the image you requested:\n[image 1: image/png; not sent: Chat Completions tool messages take text only]\nThe image above is the MCP logo.",
        ],
        ["call_3_0", "30"],
        ["call_3_1", "round three"],
      ]);
      expect(last.messages.find((m: { role: string }) => m.role === "assistant").tool_calls[0]).toEqual({
        id: "call_1_0",
        type: "function",
        function: { name: "math__add", arguments: '{"a":1,"b":2}' },
      });
    } else if (provider === "OpenAI Responses") {
      const outputs = (last.input as Array<{ type?: string; call_id?: string; output?: unknown }>).filter((item) => item.type === "function_call_output");
      expect(outputs.map((item) => item.call_id)).toEqual(["call_1_0", "call_1_1", "call_1_2", "call_2_0", "call_2_1", "call_2_2", "call_3_0", "call_3_1"]);
      expect(outputs[0].output).toBe("3");
      expect(outputs[5].output).toContainEqual({ type: "input_image", image_url: `data:image/png;base64,${image?.type === "image" ? image.data : ""}` });
      // The reasoning item goes back with its id and encrypted content, before the calls it led to.
      expect(last.input[2]).toEqual({
        type: "reasoning",
        id: "rs_1",
        summary: [{ type: "summary_text", text: "I need two sums and an echo." }],
        encrypted_content: "enc_1",
      });
      expect(last.input[3]).toEqual({ type: "function_call", call_id: "call_1_0", name: "math__add", arguments: '{"a":1,"b":2}' });
    } else {
      expect(last.system).toBe("Use the tools.");
      expect(last.max_tokens).toBe(1024);
      const roles = (last.messages as Array<{ role: string }>).map((m) => m.role);
      expect(roles).toEqual(["user", "assistant", "user", "assistant", "user", "assistant", "user"]);
      expect(last.messages[1].content[0]).toEqual({ type: "thinking", thinking: "I need two sums and an echo.", signature: "sig_1" });
      const round2 = last.messages[4].content as Array<{ type: string; tool_use_id: string; content: unknown[] }>;
      expect(round2.map((b) => b.tool_use_id)).toEqual(["toolu_2_0", "toolu_2_1", "toolu_2_2"]);
      expect(round2[2].content).toContainEqual({
        type: "image",
        source: { type: "base64", media_type: "image/png", data: image?.type === "image" ? image.data : "" },
      });
    }
  });
});
