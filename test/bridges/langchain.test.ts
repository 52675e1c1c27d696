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
import { waitFor } from "../helpers/processes.js";
import { agentFixtures, cancelServer, node, threeRounds, twoServers } from "../agents/helpers.js";

const fixtures = agentFixtures();
const chatModel = (baseURL: string) => new ChatOpenAI({ model: "gpt-test", apiKey: "test", configuration: { baseURL }, maxRetries: 0 });

type ChatMessage = { role: string; content: unknown; tool_call_id?: string };
const toolMessages = (body: { messages: ChatMessage[] }) => body.messages.filter((m) => m.role === "tool");

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
    const sent = toolMessages(server.requests[3].body as never);
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
    expect(toolMessages(server.requests[1].body as never).map((m) => m.content)).toEqual(["this tool always fails"]);

    const add = tools.find((t) => t.name === "math__add")!;
    expect(await add.invoke({ a: 2, b: 3 })).toBe("5");
  });

  it("the run's signal cancels the MCP calls in flight", async () => {
    const board = await fixtures.board({ servers: { slow: { command: node, args: [cancelServer] } }, client: { protocol: "legacy" } });
    let stderr = "";
    board.on("stderr", ({ text }) => (stderr += text));
    const server = await fixtures.modelServer([{ toolCalls: ["a", "b"].map((tag) => ({ name: "slow__wait", arguments: { tag } })) }, { text: "never" }]);
    const controller = new AbortController();
    const agent = createAgent({ model: chatModel(server.openaiBaseURL), tools: await toLangChainTools(board) });
    const running = agent.invoke({ messages: [{ role: "user", content: "Wait." }] }, { signal: controller.signal });
    await waitFor(() => stderr.includes("started a") && stderr.includes("started b"), 10_000);
    controller.abort();
    await expect(running).rejects.toThrow();
    await waitFor(() => stderr.includes("cancelled a") && stderr.includes("cancelled b"), 10_000);
    expect(board.status().slow.inFlight).toBe(0);
    expect(server.requests).toHaveLength(1);
  });
});
