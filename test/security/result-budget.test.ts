/**
 * Result budgets: a tool that answers with a large text and an image reaches the model cut (through
 * runAgent and the OpenAI and Anthropic runners), with a note saying how much was left out and how to get
 * the rest, while board.callTool still returns the whole result. Precedence: call, run, server, board.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ConfigError,
  Switchboard,
  memoryPair,
  runAgent,
  runAnthropicToolUse,
  runOpenAIToolCall,
  type AgentModel,
  type CallToolResult,
  type TraceMessage,
} from "../../src/index.js";
import { cutResult } from "../../src/switchboard/result-budget.js";
import { toSdkTransport } from "../helpers/sdk-bridge.js";

let boards: Switchboard[] = [];
afterEach(async () => {
  await Promise.all(boards.map((b) => b.stop()));
  boards = [];
});

const BIG = "x".repeat(50_000);
const IMAGE = Buffer.alloc(30_000, 7).toString("base64");

async function startBoard(options: { board?: number; server?: number } = {}): Promise<Switchboard> {
  const transport = () => {
    const [clientSide, serverSide] = memoryPair();
    const server = new McpServer({ name: "logs", version: "1.0.0" });
    server.registerTool("dump", { description: "Dumps the log.", inputSchema: { lines: z.number().optional() } }, async () => ({
      content: [
        { type: "text", text: BIG },
        { type: "image", data: IMAGE, mimeType: "image/png" },
      ],
    }));
    server.registerTool("small", { description: "A short answer." }, async () => ({ content: [{ type: "text", text: "ok" }] }));
    void server.connect(toSdkTransport(serverSide));
    return clientSide;
  };
  const board = new Switchboard({
    servers: { logs: { transport, ...(options.server !== undefined ? { maxResultChars: options.server } : {}) } },
    client: { protocol: "legacy" },
    ...(options.board !== undefined ? { maxResultChars: options.board } : {}),
  });
  boards.push(board);
  await board.start();
  await board.listTools();
  return board;
}

function textOf(content: readonly unknown[]): string {
  return content
    .map((block) => ((block as { type: string }).type === "text" ? (block as { text: string }).text : `<${(block as { type: string }).type}>`))
    .join("|");
}

describe("result budgets", () => {
  it("runAgent: the model reads a cut result with a note; callTool still returns all of it", async () => {
    const board = await startBoard({ board: 1000 });
    let seenByModel: TraceMessage[] = [];
    const model: AgentModel = async (request) => {
      seenByModel = [...request.messages];
      return request.turn === 1
        ? { message: { role: "assistant", content: [{ type: "tool_use", id: "u1", name: "logs__dump", input: {} }] } }
        : { message: { role: "assistant", content: [{ type: "text", text: "done" }] } };
    };
    const run = await runAgent({ model, host: board, messages: "dump the log" });
    expect(run.stopReason).toBe("end");
    const toolMessage = seenByModel.find((message) => message.role === "tool")!;
    const block = toolMessage.content[0] as { type: "tool_result"; content: Array<{ type: string; text?: string }> };
    expect(block.content).toHaveLength(2);
    expect(block.content[0].text).toBe("x".repeat(1000));
    expect(block.content[1].text).toMatch(
      /\[Result cut to fit 1000 characters: 79000 of 80000 left out \(1 content block left out whole\)\. For the rest, call logs__dump again/,
    );

    const whole = await board.callTool("logs__dump");
    expect((whole.content[0] as { text: string }).text).toHaveLength(50_000);
    expect(whole.content).toHaveLength(2);
  });

  it("runAgent's own budget and callOptions.maxResultChars win over the board's", async () => {
    const board = await startBoard({ board: 1000, server: 2000 });
    const seen: number[] = [];
    const model: AgentModel = async (request) => {
      const last = request.messages[request.messages.length - 1];
      if (last.role === "tool") seen.push((last.content[0] as { content: Array<{ text: string }> }).content[0].text.length);
      return request.turn === 1
        ? { message: { role: "assistant", content: [{ type: "tool_use", id: "u1", name: "logs__dump", input: {} }] } }
        : { message: { role: "assistant", content: [{ type: "text", text: "done" }] } };
    };
    await runAgent({ model, host: board, messages: "go" });
    await runAgent({ model, host: board, messages: "go", maxResultChars: 300 });
    await runAgent({ model, host: board, messages: "go", maxResultChars: 300, callOptions: { maxResultChars: 100 } });
    // Server 2000 wins over the board's 1000; the run's 300 over both; the call's 100 over the run's.
    expect(seen).toEqual([2000, 300, 100]);
  });

  it("the runners cut too, and a small result passes untouched", async () => {
    const board = await startBoard();
    const openai = await runOpenAIToolCall(board, { id: "c1", type: "function", function: { name: "logs__dump", arguments: "{}" } }, { maxResultChars: 500 });
    expect(JSON.stringify(openai)).toMatch(/Result cut to fit 500 characters/);
    expect(JSON.stringify(openai)).not.toContain("x".repeat(501));
    const anthropic = await runAnthropicToolUse(board, { type: "tool_use", id: "t1", name: "logs__dump", input: {} }, { maxResultChars: 40_000 });
    const text = JSON.stringify(anthropic);
    // The text fits; the image (30000 bytes) does not fit in the 0 left.
    expect(text).toContain("x".repeat(40_000));
    expect(text).not.toContain("image/png");
    const small = await runOpenAIToolCall(board, { id: "c2", type: "function", function: { name: "logs__small", arguments: "{}" } }, { maxResultChars: 5 });
    expect(JSON.stringify(small)).not.toMatch(/cut/);
    // Without any budget the whole text reaches the model.
    const all = await runOpenAIToolCall(board, { id: "c3", type: "function", function: { name: "logs__dump", arguments: "{}" } });
    expect(JSON.stringify(all)).toContain(BIG);
  });

  it("images count by bytes; a resource link is named as the way to the rest", () => {
    const result: CallToolResult = {
      content: [
        { type: "text", text: "a".repeat(100) },
        { type: "resource_link", uri: "file:///var/log/big.log", name: "big.log" },
        { type: "image", data: Buffer.alloc(400).toString("base64"), mimeType: "image/png" },
      ],
    };
    const linkSize = JSON.stringify(result.content[1]).length;
    expect(cutResult(result, 100 + linkSize + 400, "t")).toBe(result);
    const cut = cutResult(result, 100 + linkSize + 399, "t");
    expect(textOf(cut.content)).toMatch(/^a{100}\|<resource_link>\|\[Result cut .* For the rest, read the resource file:\/\/\/var\/log\/big\.log\.\]$/);
    const structuredOnly = cutResult({ content: [], structuredContent: { rows: "r".repeat(200) } }, 50, "t");
    expect(structuredOnly.structuredContent).toBeUndefined();
    expect((structuredOnly.content[0] as { text: string }).text).toHaveLength(50);
  });

  it("a budget that is not a whole number >= 1 is a ConfigError naming it", async () => {
    expect(() => new Switchboard({ servers: {}, maxResultChars: 0 })).toThrow(/field "maxResultChars"/);
    expect(() => new Switchboard({ servers: { s: { command: "x", maxResultChars: 1.5 } } })).toThrow(ConfigError);
    const board = await startBoard();
    await expect(
      runAgent({ model: async () => ({ message: { role: "assistant", content: [] } }), host: board, messages: "x", maxResultChars: -1 }),
    ).rejects.toThrow(/field "maxResultChars"/);
    await expect(
      runOpenAIToolCall(board, { id: "c", type: "function", function: { name: "logs__small", arguments: "{}" } }, { maxResultChars: "9" as unknown as number }),
    ).rejects.toThrow(ConfigError);
  });
});
