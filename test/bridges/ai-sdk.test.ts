/**
 * `mcp-switchboard/ai` with the AI SDK's own agent loop: `generateText` with `stopWhen`, the SDK's
 * OpenAI-compatible provider (`@ai-sdk/openai-compatible`, a dev dependency) pointed at the scripted
 * model server on 127.0.0.1, tools on real MCP servers over stdio. `ai` 6 is the newest major that runs
 * on Node 20 (7 needs Node 22). Checked: three rounds of parallel calls reach the servers and their
 * results reach the model, failed calls are error results, and the SDK's abort signal cancels the MCP
 * calls in flight.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { toAISDKTools } from "../../src/agents/bridges/ai.js";
import { abortMidCalls, agentFixtures, sentToolMessages, threeRounds, twoServers } from "../agents/helpers.js";

const fixtures = agentFixtures();
const modelAt = (baseURL: string) => createOpenAICompatible({ name: "scripted", baseURL, apiKey: "test", includeUsage: true })("gpt-test");

describe("toAISDKTools", () => {
  it("generateText runs three rounds of parallel tool calls through the Switchboard", async () => {
    const board = await fixtures.board(twoServers);
    const server = await fixtures.modelServer(threeRounds);
    const tools = await toAISDKTools(board);
    expect(Object.keys(tools)).toContain("everything__get-sum");
    expect(tools["math__add"].inputSchema).toBeDefined();

    const result = await generateText({ model: modelAt(server.openaiBaseURL), tools, prompt: "Add some numbers.", stopWhen: stepCountIs(10), maxRetries: 0 });
    expect(result.text).toBe("The sums are 3, 7, 11 and 30.");
    expect(result.steps).toHaveLength(4);
    expect(result.steps[0].toolResults.map((r) => (r.output as { content: Array<{ text: string }> }).content[0].text)).toEqual(["3", "7", "Echo: hello"]);
    expect(result.totalUsage.inputTokens).toBe(101 + 202 + 303 + 404);
    expect(result.totalUsage.outputTokens).toBe(11 + 22 + 33 + 44);

    // What the model server received: the tools, then every result, in order of the calls.
    expect((server.requests[0].body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain("math__add");
    const sent = sentToolMessages(server.requests[3].body);
    expect(sent.map((m) => m.tool_call_id)).toEqual(["call_1_0", "call_1_1", "call_1_2", "call_2_0", "call_2_1", "call_2_2", "call_3_0", "call_3_1"]);
    expect(sent.slice(0, 5).map((m) => m.content)).toEqual(["3", "7", "Echo: hello", "The sum of 5 and 6 is 11.", "round two"]);
    expect(sent[6].content).toBe("30");
  });

  it("a tool's error result reaches the model as the tool's answer, marked isError in the output", async () => {
    const board = await fixtures.board(twoServers);
    const server = await fixtures.modelServer([
      {
        toolCalls: [
          { name: "math__fail", arguments: {} },
          { name: "math__add", arguments: { a: 1, b: 2 } },
        ],
      },
      { text: "noted" },
    ]);
    const result = await generateText({
      model: modelAt(server.openaiBaseURL),
      tools: await toAISDKTools(board),
      prompt: "Try.",
      stopWhen: stepCountIs(5),
      maxRetries: 0,
    });
    expect(result.text).toBe("noted");
    const sent = sentToolMessages(server.requests[1].body).map((m) => m.content);
    expect(sent).toEqual(["this tool always fails", "3"]);
    expect((result.steps[0].toolResults[0].output as { isError?: boolean }).isError).toBe(true);
  });

  it("the AI SDK's abort signal cancels the MCP calls in flight", async () => {
    await abortMidCalls(fixtures, async (board, baseURL, abortSignal) =>
      generateText({ model: modelAt(baseURL), tools: await toAISDKTools(board), prompt: "Wait.", stopWhen: stepCountIs(5), maxRetries: 0, abortSignal }),
    );
  });
});
