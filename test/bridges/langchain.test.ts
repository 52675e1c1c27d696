/**
 * `mcp-switchboard/langchain` with LangChain's own agent: `createAgent` from `langchain` (a dev
 * dependency) over `ChatOpenAI` from `@langchain/openai` (a dev dependency, 1.5.8: the last release on
 * `openai` 6, which runs on Node 20) pointed at the scripted model server on 127.0.0.1, tools on real
 * MCP servers over stdio. Checked: three rounds of parallel calls reach the servers and their results
 * the model, a tool error is a ToolMessage with status "error", and the run's signal cancels the MCP
 * calls in flight.
 */
import { ChatOpenAI } from "@langchain/openai";
import { createAgent, ToolMessage } from "langchain";
import { describe, expect, it } from "vitest";
import { toLangChainTools } from "../../src/agents/bridges/langchain.js";
import { abortMidCalls, agentFixtures, sentToolMessages, threeRounds, twoServers } from "../agents/helpers.js";

const fixtures = agentFixtures();
const chatModel = (baseURL: string) => new ChatOpenAI({ model: "gpt-test", apiKey: "test", configuration: { baseURL }, maxRetries: 0 });

describe("toLangChainTools", () => {
  it("createAgent runs three rounds of parallel tool calls through the Switchboard", async () => {
    const board = await fixtures.board(twoServers);
    const server = await fixtures.modelServer(threeRounds);
    const tools = await toLangChainTools(board);
    expect(tools.map((t) => t.name)).toContain("everything__get-sum");

    const agent = createAgent({ model: chatModel(server.openaiBaseURL), tools });
    const out = await agent.invoke({ messages: [{ role: "user", content: "Add some numbers." }] });
    const last = out.messages[out.messages.length - 1];
    expect(last.content).toBe("The sums are 3, 7, 11 and 30.");
    const results = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(results.map((m) => m.content)).toEqual([
      "3",
      "7",
      "Echo: hello",
      "The sum of 5 and 6 is 11.",
      "round two",
      expect.stringMatching(/^Here's the image you requested:\n\[image: image\/png, \d+ bytes; not sent\]\nThe image above is the MCP logo\.$/),
      "30",
      "round three",
    ]);
    // The whole MCP result rides along as the artifact (the image included).
    expect((results[5].artifact as { content: Array<{ type: string }> }).content.map((c) => c.type)).toEqual(["text", "image", "text"]);
    expect(results.every((m) => m.status === "success")).toBe(true);

    expect(server.requests).toHaveLength(4);
    expect((server.requests[0].body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain("math__add");
    const sent = sentToolMessages(server.requests[3].body);
    expect(sent.map((m) => m.tool_call_id)).toEqual(["call_1_0", "call_1_1", "call_1_2", "call_2_0", "call_2_1", "call_2_2", "call_3_0", "call_3_1"]);
    expect(sent.map((m) => m.content).slice(0, 3)).toEqual(["3", "7", "Echo: hello"]);
  });

  it("a tool's error result is a ToolMessage with status error; plain invoke answers with the text", async () => {
    const board = await fixtures.board(twoServers);
    const server = await fixtures.modelServer([{ toolCalls: [{ name: "math__fail", arguments: {} }] }, { text: "noted" }]);
    const tools = await toLangChainTools(board);
    const out = await createAgent({ model: chatModel(server.openaiBaseURL), tools }).invoke({ messages: [{ role: "user", content: "Try." }] });
    const result = out.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    expect(result.status).toBe("error");
    expect(result.content).toBe("this tool always fails");
    expect(sentToolMessages(server.requests[1].body).map((m) => m.content)).toEqual(["this tool always fails"]);

    const add = tools.find((t) => t.name === "math__add")!;
    expect(await add.invoke({ a: 2, b: 3 })).toBe("5");
  });

  it("the run's signal cancels the MCP calls in flight", async () => {
    await abortMidCalls(fixtures, async (board, baseURL, signal) =>
      createAgent({ model: chatModel(baseURL), tools: await toLangChainTools(board) }).invoke({ messages: [{ role: "user", content: "Wait." }] }, { signal }),
    );
  });
});
