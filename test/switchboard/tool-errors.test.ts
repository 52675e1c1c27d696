/**
 * Errors name the server (src/switchboard/tool-errors.ts, tool-resolve.ts): a call for a tool of a
 * server that never came up (the real filesystem server given a directory that does not exist) rejects
 * with a ServerUnavailableError naming the server, its state and its last words on stderr, though no
 * list ever named the tool; the runners and runAgent give the model the same words. A misspelt name
 * gets the closest names.
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  codeMode,
  runAgent,
  runAnthropicToolUse,
  runGeminiFunctionCall,
  runOpenAIToolCall,
  ServerUnavailableError,
  UnknownToolError,
  type AgentModel,
  type Switchboard,
} from "../../src/index.js";
import { closestNames } from "../../src/switchboard/tool-errors.js";
import { boardsAfterEach, echoServer, node } from "./board-helpers.js";

const board = boardsAfterEach();
const require = createRequire(import.meta.url);
const filesystem = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
const noRestart = { maxRestarts: 0, withinMs: 10_000, backoff: { initialMs: 20, maxMs: 20, factor: 1, jitter: 0 } };

async function boardWithBrokenFs(): Promise<Switchboard> {
  const b = board({
    servers: {
      fs: { command: node, args: [filesystem, "/no/such/dir/for/mcp-switchboard"], restart: noRestart },
      echo: { command: node, args: [echoServer] },
    },
  });
  await b.start();
  expect(b.status().fs.state).toBe("down");
  return b;
}

/** One model turn that calls `name`, then stops: what the model read comes back in `seen`. */
function callingModel(name: string): { model: AgentModel; seen: string[] } {
  const seen: string[] = [];
  let turn = 0;
  const model: AgentModel = async (request) => {
    if (turn++ === 0) return { message: { role: "assistant", content: [{ type: "tool_use", id: "1", name, input: {} }] }, stopReason: "tool_use" };
    for (const message of request.messages)
      for (const block of message.content) if (block.type === "tool_result") seen.push(...block.content.map((part) => (part.type === "text" ? part.text : "")));
    return { message: { role: "assistant", content: [{ type: "text", text: "ok" }] }, stopReason: "end" };
  };
  return { model, seen };
}

describe("errors that name the server", () => {
  it("a call for a server that never came up names it, its state and its stderr, in the board and in every runner", async () => {
    const b = await boardWithBrokenFs();
    const error = await b.callTool("fs__read_text_file", { path: "/tmp/x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    const unavailable = error as ServerUnavailableError;
    expect(unavailable).toMatchObject({ server: "fs", state: "down", delivered: false });
    expect(unavailable.message).toMatch(/server "fs" is down/);
    expect(unavailable.lastError).toMatch(/None of the specified directories are accessible/);
    expect(unavailable.message).toMatch(/None of the specified directories are accessible/);

    // The model reads the same words from every runner, though no tool list ever named the tool.
    const words = /fs__read_text_file cannot run: server "fs" is down.*None of the specified directories are accessible/s;
    const openai = await runOpenAIToolCall(b, { id: "c1", type: "function", function: { name: "fs__read_text_file", arguments: "{}" } });
    expect(openai.content).toMatch(words);
    const anthropic = await runAnthropicToolUse(b, { type: "tool_use", id: "t1", name: "fs__read_text_file", input: {} });
    expect(JSON.stringify(anthropic.content)).toMatch(/server \\"fs\\" is down/);
    const gemini = await runGeminiFunctionCall(b, { name: "fs__read_text_file", args: {} });
    expect(JSON.stringify(gemini)).toMatch(/server \\"fs\\" is down/);
    const { model, seen } = callingModel("fs__read_text_file");
    await runAgent({ model, host: b, messages: [{ role: "user", content: [{ type: "text", text: "read" }] }] });
    expect(seen.join("\n")).toMatch(words);

    // Code mode: the server is in no catalog the sandbox sees, and its call still names it and why.
    const code = codeMode(b);
    const out = await code.run(`return await tools.fs.read_text_file({ path: "/tmp/x" });`);
    expect(out.error?.name).toBe("ToolError");
    expect(out.error?.message).toMatch(/tools\["fs"\]\["read_text_file"\]: fs__read_text_file cannot run: server "fs" is down.*None of the specified/s);
    const other = await code.run(`return await tools.weather.today({});`);
    expect(other.error?.message).toMatch(/unknown tool tools\["weather"\]\["today"\]; the servers are: echo/);
  });

  it("a server whose every start failed so far is not waited for while it restarts: its calls fail at once with its last words", async () => {
    // Restarts are allowed, with a long backoff: the server stays "restarting" through the test.
    const slowRetry = { maxRestarts: 5, withinMs: 60_000, backoff: { initialMs: 10_000, maxMs: 10_000, factor: 1, jitter: 0 } };
    const b = board({ servers: { fs: { command: node, args: [filesystem, "/no/such/dir/for/mcp-switchboard"], restart: slowRetry } } });
    // A call made while the first start runs waits for it, and hears why it failed.
    const started = b.start();
    const during = await b.callTool("fs__read_text_file", { path: "/tmp/x" }, { timeoutMs: 8_000 }).catch((e: unknown) => e);
    await started;
    const after = await b.callTool("fs__read_text_file", { path: "/tmp/x" }, { timeoutMs: 8_000 }).catch((e: unknown) => e);
    for (const error of [during, after]) {
      expect(error).toBeInstanceOf(ServerUnavailableError);
      expect(error).toMatchObject({ server: "fs", state: "restarting", delivered: false });
      // Not "did not come up within 8000 ms": it was not waited for.
      expect((error as Error).message).toMatch(/server "fs" is restarting \(last error: .*None of the specified directories are accessible/s);
    }
    expect(b.status().fs.state).toBe("restarting");
  });

  it("a call for a server still starting names it and its state when the call's time runs out", async () => {
    const b = board({ servers: { quiet: { command: node, args: ["-e", "setInterval(() => {}, 1000)"], startTimeoutMs: 20_000 } } });
    const starting = b.start();
    const error = await b.callTool("quiet__anything", {}, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    expect(error).toMatchObject({ server: "quiet", state: "starting", delivered: false });
    expect((error as Error).message).toMatch(/server "quiet" did not come up within \d+ ms \(starting\)/);
    await b.stop();
    await starting;
  });

  it("a misspelt tool name gets the closest names, from the board and from the runners", async () => {
    const b = board({ servers: { inventory: { command: node, args: [echoServer] } } });
    await b.start();
    await b.listTools();
    const error = await b.callTool("inventory__ech", { text: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownToolError);
    expect((error as UnknownToolError).suggestions[0]).toBe("inventory__echo");
    expect((error as Error).message).toMatch(/did you mean "inventory__echo"/);
    // A name with no configured server's prefix still gets suggestions.
    expect(((await b.callTool("inventry__echo").catch((e: unknown) => e)) as UnknownToolError).suggestions).toEqual(["inventory__echo"]);
    const openai = await runOpenAIToolCall(b, { id: "c1", type: "function", function: { name: "inventory__ech", arguments: "{}" } });
    expect(openai.content).toMatch(/did you mean "inventory__echo"/);
    const { model, seen } = callingModel("inventory__ech");
    await runAgent({ model, host: b, messages: [{ role: "user", content: [{ type: "text", text: "echo" }] }] });
    expect(seen.join("\n")).toMatch(/did you mean "inventory__echo"/);
  });

  it("suggests only names close in the part that differs, not ones that merely share the server prefix", () => {
    const known = ["inventory__echo", "inventory__add", "inventory__pid", "inventory__get_stock", "inventory__get_status", "billing__echo"];
    expect(closestNames("inventory__ech", known)).toEqual(["inventory__echo"]);
    expect(closestNames("inventory__get_stok", known)).toEqual(["inventory__get_stock"]);
    // A misspelt server still finds its tool.
    expect(closestNames("inventry__echo", known)).toEqual(["inventory__echo"]);
    expect(closestNames("weather__today", known)).toEqual([]);
  });

  it("a misspelt name called the moment the board is up, before its list came (as `mcp-switchboard call` does), gets them too", async () => {
    const b = board({ servers: { inventory: { command: node, args: [echoServer] } } });
    await b.start();
    const error = await b.callTool("inventory__ech", { text: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownToolError);
    expect((error as Error).message).toMatch(/did you mean "inventory__echo"/);
    // The right name, called as early on another board, runs.
    const fresh = board({ servers: { inventory: { command: node, args: [echoServer] } } });
    await fresh.start();
    expect((await fresh.callTool("inventory__echo", { text: "x" })).content).toEqual([{ type: "text", text: "x" }]);
  });
});
