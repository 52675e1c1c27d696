/**
 * Deferred loading in the framework bridges: `toAISDKTools(host, { toolLoading: "deferred" })` under
 * the AI SDK's own `generateText` loop against the scripted model server (a search, then the found tool
 * offered and called), and `toLangChainTools` with the same option (a live array a search appends to)
 * under LangChain's own `createAgent` loop over `ChatOpenAI`, against the same server: a middleware
 * offers the live array at every model call and runs the tools a search added.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, stepCountIs } from "ai";
import { createAgent, createMiddleware, ToolMessage } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { toAISDKTools } from "../../src/agents/bridges/ai.js";
import { toLangChainTools } from "../../src/agents/bridges/langchain.js";
import { startModelServer } from "../fixtures/model-server.js";
import { acmeBoard } from "./acme-board.js";

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  cleanups = [];
});

describe("bridges with toolLoading: deferred", () => {
  it("AI SDK: generateText sees the pinned tools and search_tools, then the tool the search found", async () => {
    const board = await acmeBoard(cleanups);
    const server = await startModelServer([
      { toolCalls: [{ name: "search_tools", arguments: { query: "cancel a subscription" } }] },
      { toolCalls: [{ name: "acme__subscription_cancel", arguments: { id: "sub_1" } }] },
      { text: "Cancelled." },
    ]);
    cleanups.push(() => server.close());
    const tools = await toAISDKTools(board, { toolLoading: "deferred", pinnedTools: ["acme__get_customer"] });
    expect(Object.keys(tools).sort()).toEqual(["acme__get_customer", "search_tools"]);
    const model = createOpenAICompatible({ name: "scripted", baseURL: server.openaiBaseURL, apiKey: "test" })("gpt-test");
    const result = await generateText({ model, tools, prompt: "Cancel sub_1", stopWhen: stepCountIs(5), maxRetries: 0 });
    expect(result.text).toBe("Cancelled.");
    const names = (index: number) => server.requests[index].body.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(names(0).sort()).toEqual(["acme__get_customer", "search_tools"]);
    expect(names(1)).toContain("acme__subscription_cancel");
    const toolMessages = server.requests[2].body.messages.filter((message: { role: string }) => message.role === "tool");
    expect(JSON.stringify(toolMessages.at(-1))).toContain("did subscription_cancel");
  });

  it("LangChain: the array holds the pinned tools and search_tools; a search appends what it found", async () => {
    const board = await acmeBoard(cleanups);
    const tools = await toLangChainTools(board, { toolLoading: "deferred", pinnedTools: ["acme__get_customer"] });
    expect(tools.map((tool) => tool.name)).toEqual(["acme__get_customer", "search_tools"]);
    const answer = await tools[1].invoke({ query: "approve a vacation request", limit: 2 });
    expect(answer).toMatch(/acme__time_off_request_approve/);
    expect(tools.map((tool) => tool.name)).toContain("acme__time_off_request_approve");
    const approve = tools.find((tool) => tool.name === "acme__time_off_request_approve")!;
    expect(await approve.invoke({ id: "t1" })).toBe('did time_off_request_approve {"id":"t1"}');
    await expect(toLangChainTools(board, { toolLoading: "later" as "deferred" })).rejects.toThrow(/field "toolLoading"/);
  });

  it("LangChain: createAgent offers pinned + search_tools, the model searches, then calls the found tool, and the result comes back", async () => {
    const board = await acmeBoard(cleanups);
    const server = await startModelServer([
      { toolCalls: [{ name: "search_tools", arguments: { query: "cancel a subscription", limit: 3 } }] },
      { toolCalls: [{ name: "acme__subscription_cancel", arguments: { id: "sub_7" } }] },
      { text: "Subscription sub_7 is cancelled." },
    ]);
    cleanups.push(() => server.close());
    const tools = await toLangChainTools(board, { toolLoading: "deferred", pinnedTools: ["acme__get_customer"] });
    // The array is live: offer what it holds now at every model call, and run what a search added.
    const deferredTools = createMiddleware({
      name: "DeferredTools",
      wrapModelCall: (request, handler) => handler({ ...request, tools: [...tools] }),
      wrapToolCall: (request, handler) => handler({ ...request, tool: request.tool ?? tools.find((tool) => tool.name === request.toolCall.name) }),
    });
    const model = new ChatOpenAI({ model: "gpt-test", apiKey: "test", configuration: { baseURL: server.openaiBaseURL }, maxRetries: 0 });
    const agent = createAgent({ model, tools: [...tools], middleware: [deferredTools] });
    const out = await agent.invoke({ messages: [{ role: "user", content: "Cancel subscription sub_7" }] });

    expect(out.messages.at(-1)?.content).toBe("Subscription sub_7 is cancelled.");
    const names = (index: number) => (server.requests[index].body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name);
    expect(names(0).sort()).toEqual(["acme__get_customer", "search_tools"]);
    expect(names(1)).toContain("acme__subscription_cancel");
    expect(names(1).length).toBeLessThanOrEqual(5); // pinned + search + the (at most 3) found
    const results = out.messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
    expect(results.map((message) => message.name)).toEqual(["search_tools", "acme__subscription_cancel"]);
    expect(results[0].content).toMatch(/acme__subscription_cancel/);
    expect(results[1]).toMatchObject({ status: "success", content: 'did subscription_cancel {"id":"sub_7"}' });
    // What the model saw on turn 3: the MCP result of the loaded tool.
    const sent = (server.requests[2].body.messages as Array<{ role: string; content: unknown }>).filter((message) => message.role === "tool");
    expect(sent.at(-1)?.content).toBe('did subscription_cancel {"id":"sub_7"}');
  });
});
