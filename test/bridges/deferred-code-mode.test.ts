/**
 * The bridges behave like runAgent, through each framework's own loop (the AI SDK's generateText,
 * LangChain's createAgent, both over the scripted model server on 127.0.0.1): in deferred mode an
 * exact-name call of a tool that was not offered runs it and offers it from then on; code mode with
 * deferred loading offers `run_code` and a search whose answer is TypeScript declarations; code mode
 * over a host that is not a Switchboard is a ConfigError.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ChatOpenAI } from "@langchain/openai";
import { generateText, stepCountIs } from "ai";
import { createAgent, ToolMessage } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { toAISDKTools } from "../../src/agents/bridges/ai.js";
import { deferredToolsMiddleware, toLangChainTools } from "../../src/agents/bridges/langchain.js";
import { startModelServer, type ModelServer, type ScriptedTurn } from "../fixtures/model-server.js";
import { acmeBoard } from "../catalog/acme-board.js";

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  cleanups = [];
});

async function modelServer(script: readonly ScriptedTurn[]): Promise<ModelServer> {
  const server = await startModelServer(script);
  cleanups.push(() => server.close());
  return server;
}

const offeredAt = (server: ModelServer, index: number): string[] =>
  (server.requests[index].body.tools as Array<{ function: { name: string } }>).map((tool) => tool.function.name).sort();
const toolMessages = (server: ModelServer, index: number): Array<{ content: string }> =>
  (server.requests[index].body.messages as Array<{ role: string; content: string }>).filter((message) => message.role === "tool");

const exactName: ScriptedTurn[] = [
  { toolCalls: [{ name: "acme__subscription_cancel", arguments: { id: "sub_1" } }] },
  { text: "Cancelled." },
  { text: "Again." },
];

const codeScript: ScriptedTurn[] = [
  { toolCalls: [{ name: "search_tools", arguments: { query: "cancel a subscription", limit: 2 } }] },
  {
    toolCalls: [
      {
        name: "run_code",
        arguments: { code: 'const ids = ["sub_1", "sub_2"];\nreturn await Promise.all(ids.map((id) => tools.acme.subscription_cancel({ id })));' },
      },
    ],
  },
  { text: "Both cancelled." },
];

describe("AI SDK bridge", () => {
  it("deferred: an exact-name call of a tool not offered runs it, and it is offered from the next step on", async () => {
    const board = await acmeBoard(cleanups);
    const server = await modelServer(exactName);
    const tools = await toAISDKTools(board, { toolLoading: "deferred" });
    const model = createOpenAICompatible({ name: "scripted", baseURL: server.openaiBaseURL, apiKey: "test" })("gpt-test");
    const result = await generateText({ model, tools, prompt: "Cancel sub_1", stopWhen: stepCountIs(4), maxRetries: 0 });
    expect(result.text).toBe("Cancelled.");
    expect(offeredAt(server, 0)).toEqual(["search_tools"]);
    expect(toolMessages(server, 1).at(-1)?.content).toContain('did subscription_cancel {"id":"sub_1"}');
    expect(offeredAt(server, 1)).toContain("acme__subscription_cancel");
  });

  it("code mode with deferred loading: run_code and a search that answers with declarations", async () => {
    const board = await acmeBoard(cleanups);
    const server = await modelServer(codeScript);
    const tools = await toAISDKTools(board, { codeMode: { workers: 2 }, toolLoading: "deferred" });
    expect(Object.keys(tools).sort()).toEqual(["run_code", "search_tools"]);
    const model = createOpenAICompatible({ name: "scripted", baseURL: server.openaiBaseURL, apiKey: "test" })("gpt-test");
    const result = await generateText({ model, tools, prompt: "Cancel sub_1 and sub_2", stopWhen: stepCountIs(5), maxRetries: 0 });
    expect(result.text).toBe("Both cancelled.");
    expect(offeredAt(server, 0)).toEqual(["run_code", "search_tools"]);
    expect(toolMessages(server, 1)[0].content).toMatch(/declare const tools[\s\S]*subscription_cancel\(args/);
    expect(toolMessages(server, 2).at(-1)?.content).toContain('did subscription_cancel {\\"id\\":\\"sub_2\\"}');
    // run_code stays offered beside what the search loaded.
    expect(offeredAt(server, 2)).toContain("run_code");
  });

  it("code mode needs a Switchboard: anything else is a ConfigError naming codeMode", async () => {
    const host = { listTools: () => Promise.resolve([]), callTool: () => Promise.reject(new Error("unused")) };
    await expect(toAISDKTools(host, { codeMode: true })).rejects.toThrow(/codeMode/);
    await expect(toLangChainTools(host, { codeMode: true, toolLoading: "deferred" })).rejects.toThrow(/codeMode/);
  });
});

describe("LangChain bridge", () => {
  const chatModel = (baseURL: string) => new ChatOpenAI({ model: "gpt-test", apiKey: "test", configuration: { baseURL }, maxRetries: 0 });

  it("deferred: with deferredToolsMiddleware, an exact-name call of a tool not offered runs it and loads it", async () => {
    const board = await acmeBoard(cleanups);
    const server = await modelServer(exactName);
    const tools = await toLangChainTools(board, { toolLoading: "deferred" });
    const agent = createAgent({ model: chatModel(server.openaiBaseURL), tools: [...tools], middleware: [deferredToolsMiddleware(tools)] });
    const out = await agent.invoke({ messages: [{ role: "user", content: "Cancel sub_1" }] });
    expect(out.messages.at(-1)?.content).toBe("Cancelled.");
    const result = out.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    expect(result.status).toBe("success");
    expect(result.content).toBe('did subscription_cancel {"id":"sub_1"}');
    expect(tools.map((tool) => tool.name)).toContain("acme__subscription_cancel");
    expect(() => deferredToolsMiddleware([])).toThrow(/toolLoading/);
  });

  it("code mode with deferred loading under createAgent: search answers with declarations, run_code calls through the board", async () => {
    const board = await acmeBoard(cleanups);
    const server = await modelServer(codeScript);
    const tools = await toLangChainTools(board, { codeMode: { workers: 2 }, toolLoading: "deferred" });
    expect(tools.map((tool) => tool.name)).toEqual(["run_code", "search_tools"]);
    const agent = createAgent({ model: chatModel(server.openaiBaseURL), tools: [...tools], middleware: [deferredToolsMiddleware(tools)] });
    const out = await agent.invoke({ messages: [{ role: "user", content: "Cancel sub_1 and sub_2" }] });
    expect(out.messages.at(-1)?.content).toBe("Both cancelled.");
    const results = out.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
    expect(results[0].content).toMatch(/declare const tools[\s\S]*subscription_cancel\(args/);
    expect(results[1].content).toContain('did subscription_cancel {\\"id\\":\\"sub_2\\"}');
    expect(offeredAt(server, 2)).toContain("run_code");
  });
});
