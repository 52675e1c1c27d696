/**
 * Provider-neutral deferral: `runAgent({ toolLoading: "deferred", pinnedTools })` over Chat Completions
 * (no native tool search) through the scripted model server with the real `openai` client, and with a
 * model function of our own for the paths a script cannot steer.
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, openAIChatModel, runAgent, type AgentModel, type Tool } from "../../src/index.js";
import { startModelServer } from "../fixtures/model-server.js";
import { acmeBoard } from "./acme-board.js";

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  cleanups = [];
});

describe('runAgent({ toolLoading: "deferred" })', () => {
  it("offers the pinned tools and search_tools first, loads what a search finds for the next turns, and records it", async () => {
    const board = await acmeBoard(cleanups);
    const server = await startModelServer([
      { toolCalls: [{ name: "search_tools", arguments: { query: "refund a card payment", limit: 2 } }] },
      { toolCalls: [{ name: "acme__payment_refund", arguments: { id: "pay_9" } }] },
      { text: "Refunded pay_9." },
    ]);
    cleanups.push(() => server.close());
    const model = openAIChatModel(new OpenAI({ apiKey: "test", baseURL: server.openaiBaseURL, maxRetries: 0 }), { model: "gpt-test" });
    const result = await runAgent({ model, host: board, messages: "Refund pay_9", toolLoading: "deferred", pinnedTools: ["acme__list_invoices"] });
    expect(result.text).toBe("Refunded pay_9.");
    const offered = (index: number) => server.requests[index].body.tools.map((tool: { function: { name: string } }) => tool.function.name).sort();
    expect(offered(0)).toEqual(["acme__list_invoices", "search_tools"]);
    expect(offered(1)).toContain("acme__payment_refund");
    expect(offered(1).length).toBeLessThanOrEqual(4);
    const searchAnswer = server.requests[1].body.messages.find((message: { role: string }) => message.role === "tool");
    expect(searchAnswer.content).toMatch(/acme__payment_refund: Refund a payment/);
    const refund = server.requests[2].body.messages.filter((message: { role: string }) => message.role === "tool").at(-1);
    expect(refund.content).toBe('did payment_refund {"id":"pay_9"}');
    expect(result.steps[0].toolLoading).toMatchObject({
      offered: ["acme__list_invoices", "search_tools"],
      searches: [{ query: "refund a card payment", found: expect.arrayContaining(["acme__payment_refund"]) }],
    });
    expect(result.steps[0].toolLoading!.loaded).toContain("acme__payment_refund");
    expect(result.steps[1].toolLoading!.offered).toContain("acme__payment_refund");
    expect(result.steps[0].toolCalls[0]).toMatchObject({ name: "search_tools", isError: false });
  });

  it("a tool called by its exact name without a search runs and is loaded; an unknown one is an error result", async () => {
    const board = await acmeBoard(cleanups);
    const seen: string[][] = [];
    const script = [
      [
        { type: "tool_use" as const, id: "t1", name: "acme__invoice_void", input: { id: "in_1" } },
        { type: "tool_use" as const, id: "t2", name: "acme__nope", input: {} },
      ],
      [{ type: "text" as const, text: "ok" }],
    ];
    const model: AgentModel = async ({ tools, turn }) => {
      seen.push(tools.map((tool: Tool) => tool.name));
      return { message: { role: "assistant", content: script[turn - 1] } };
    };
    const result = await runAgent({ model, host: board, messages: "void in_1", toolLoading: "deferred" });
    expect(seen[0]).toEqual(["search_tools"]);
    expect(seen[1]).toEqual(["acme__invoice_void", "search_tools"]);
    const results = result.steps[0].toolResults!.content as Array<{ isError: boolean; content: Array<{ text: string }> }>;
    expect(results[0].content[0].text).toBe('did invoice_void {"id":"in_1"}');
    expect(results[1].isError).toBe(true);
    expect(result.steps[0].toolLoading!.loaded).toEqual(["acme__invoice_void"]);
  });

  it("a search with bad arguments is an error result; eager runs have no toolLoading; wrong option types are ConfigErrors", async () => {
    const board = await acmeBoard(cleanups);
    const model: AgentModel = async ({ turn }) => ({
      message: {
        role: "assistant",
        content: turn === 1 ? [{ type: "tool_use", id: "s", name: "search_tools", input: { q: 1 } }] : [{ type: "text", text: "x" }],
      },
    });
    const deferred = await runAgent({ model, host: board, messages: "hi", toolLoading: "deferred" });
    expect((deferred.steps[0].toolResults!.content[0] as { isError: boolean }).isError).toBe(true);
    const eager = await runAgent({
      model: async () => ({ message: { role: "assistant", content: [{ type: "text", text: "x" }] } }),
      host: board,
      messages: "hi",
    });
    expect(eager.steps[0].toolLoading).toBeUndefined();
    await expect(runAgent({ model, host: board, messages: "hi", toolLoading: "lazy" as "deferred" })).rejects.toThrow(/field "toolLoading"/);
    await expect(runAgent({ model, host: board, messages: "hi", toolLoading: "deferred", pinnedTools: "acme__x" as unknown as string[] })).rejects.toThrow(
      ConfigError,
    );
    await expect(runAgent({ model, host: board, messages: "hi", pinnedTools: ["acme__x"] })).rejects.toThrow(/needs toolLoading/);
  });
});
