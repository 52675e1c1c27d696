/**
 * Calls from code go through the board: structured results come back as data, text otherwise; an
 * error result throws a ToolError inside the code; the board's hooks and approval apply (a refusal
 * throws inside); `Promise.all` runs calls at once within the server's concurrency limit. Bad input
 * (syntax, a thrown value, an unknown tool, wrong argument types) comes back as `out.error` naming the
 * line and the tool, and the model reads it as an error result of `run_code`.
 */
import { describe, expect, it } from "vitest";
import {
  codeMode,
  ConfigError,
  runAnthropicToolUses,
  runGeminiFunctionCalls,
  runOpenAIToolCalls,
  Switchboard,
  type OpenAIChatToolCall,
} from "../../src/index.js";
import { waitFor } from "../helpers/processes.js";
import { ScriptedServer } from "../helpers/scripted-server.js";
import { CUSTOMERS, codeBoards } from "./helpers.js";

const boards = codeBoards();

describe("calls from code", () => {
  it("a structured result comes back as data, a text result as its text; TypeScript is accepted", async () => {
    const { board, seen } = await boards();
    const code = codeMode(board);
    const out = await code.run(`
      interface Customer { id: string; name: string; revenue: number }
      const c: Customer = await tools.crm.get_customer({ id: "c3" });
      const sum = await tools.math.add({ a: 2, b: 40 }) as string;
      const odd = await tools["math"]["tool-name.v2"]();
      console.log("got", c.id, { sum });
      return { name: c.name, revenue: c.revenue, sum, odd };`);
    expect(out.error).toBeUndefined();
    expect(out.value).toEqual({ name: "Customer 3", revenue: CUSTOMERS[2].revenue, sum: "42", odd: "v2" });
    expect(out.logs).toEqual(['got c3 {"sum":"42"}']);
    expect(out.calls.map((call) => [call.tool, call.isError])).toEqual([
      ["crm__get_customer", false],
      ["math__add", false],
      ["math__tool-name.v2", false],
    ]);
    expect(seen.calls).toEqual(["crm.get_customer", "math.add", "math.tool-name.v2"]);
  });

  it("media in a text result is named, not inlined: the code gets data", async () => {
    const { board } = await boards();
    const out = await codeMode(board).run(`return await tools.math.media();`);
    expect(out.value).toBe("caption\n[image image/png left out]\ninline text\n[resource file:///b.bin left out]\n[resource file:///c.txt]");
  });

  it("an error result throws a ToolError inside the code, catchable; uncaught it names the tool and the line", async () => {
    const { board } = await boards();
    const code = codeMode(board);
    const caught = await code.run(`try { await tools.math.fail(); } catch (e) { return [e instanceof ToolError, e.name, e.tool, e.message]; }`);
    expect(caught.value).toEqual([true, "ToolError", "math.fail", 'tools["math"]["fail"]: this tool always fails']);
    const uncaught = await code.run(`const a = 1;\n\nawait tools.crm.get_customer({ id: "nobody" });`);
    expect(uncaught.error).toEqual({ name: "ToolError", message: 'tools["crm"]["get_customer"]: no customer nobody (line 3)', line: 3 });
    expect(uncaught.calls).toEqual([{ tool: "crm__get_customer", durationMs: expect.any(Number), isError: true }]);
  });

  it("the board's hooks apply: before rewrites, approve refuses (a throw inside), and the server never sees the refused call", async () => {
    const { board, seen } = await boards({
      hooks: {
        before: (context) => (context.name === "math__add" ? { args: { ...(context.args as object), b: 100 } } : undefined),
        approve: (request) => (request.name === "crm__get_customer" ? { allow: false as const, reason: "customer data needs a human" } : true),
      },
    });
    const code = codeMode(board);
    const out = await code.run(`
      const sum = await tools.math.add({ a: 1, b: 2 });
      let refused = "";
      try { await tools.crm.get_customer({ id: "c1" }); } catch (e) { refused = e.message; }
      return { sum, refused };`);
    expect(out.value).toEqual({ sum: "101", refused: expect.stringMatching(/customer data needs a human/) });
    expect(seen.calls).toEqual(["math.add"]);
  });

  it("Promise.all runs calls at once, within the server's maxConcurrency", async () => {
    const { board, seen } = await boards({}, { math: { maxConcurrency: 2 } });
    const code = codeMode(board);
    const out = await code.run(`return await Promise.all([1, 2, 3, 4, 5, 6].map(() => tools.math.slow({ ms: 60 })));`);
    expect(out.error).toBeUndefined();
    expect(out.value).toEqual(Array(6).fill("waited 60"));
    expect(seen.peak).toBe(2);
    const unlimited = await boards();
    const all = await codeMode(unlimited.board).run(`return (await Promise.all([1, 2, 3, 4, 5].map(() => tools.math.slow({ ms: 100 })))).length;`);
    expect(all.value).toBe(5);
    expect(unlimited.seen.peak).toBe(5);
  });

  it("breakers apply: failures from code open the server's circuit, and the next call throws inside", async () => {
    const { board } = await boards({}, { math: { circuit: { failureThreshold: 2, cooldownMs: 60_000 } } });
    const code = codeMode(board, { callOptions: { timeoutMs: 50 } });
    const out = await code.run(`const names = [];
      for (let i = 0; i < 3; i++) { try { await tools.math.slow({ ms: 5000 }); } catch (e) { names.push(e.name); } }
      return names;`);
    expect(out.value).toEqual(["RequestTimeoutError", "RequestTimeoutError", "CircuitOpenError"]);
    expect(board.status().math.circuit).toBe("open");
  });

  it("fallbacks apply: the primary dies mid-call and the idempotent call moves to the backup", async () => {
    const echo = { name: "echo", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } };
    const primary = new ScriptedServer().on("tools/list", () => ({ tools: [echo] })).on("tools/call", () => "silent");
    const backup = new ScriptedServer()
      .on("tools/list", () => ({ tools: [echo] }))
      .on("tools/call", () => ({ content: [{ type: "text", text: "from backup" }] }));
    const board = new Switchboard({
      servers: {
        primary: { transport: () => primary.clientSide, fallbacks: ["backup"], restart: { maxRestarts: 0, withinMs: 10_000 }, protocol: "legacy" },
        backup: { transport: () => backup.clientSide, protocol: "legacy" },
      },
    });
    try {
      await board.start();
      await board.listTools();
      const running = codeMode(board).run(`return await tools.primary.echo({ text: "x" });`);
      await waitFor(() => primary.messages("tools/call").length === 1);
      await primary.crash();
      const out = await running;
      expect(out.value).toBe("from backup");
      expect(out.calls).toEqual([{ tool: "primary__echo", durationMs: expect.any(Number), isError: false }]);
    } finally {
      await board.stop();
    }
  });

  it("the tools filter limits what the code sees and may call", async () => {
    const { board, seen } = await boards();
    const code = codeMode(board, { tools: { only: ["crm__*"], except: ["crm__list_ids"] } });
    const declarations = await code.declarations();
    expect(declarations).toContain("get_customer(");
    expect(declarations).not.toContain("list_ids");
    expect(declarations).not.toContain("math");
    const out = await code.run(`return await tools.math.add({ a: 1, b: 2 });`);
    expect(out.error?.message).toMatch(/unknown tool tools\["math"\]\["add"\]/);
    expect(seen.calls).toEqual([]);
  });
});

describe("bad input", () => {
  it("a syntax error names its line", async () => {
    const { board } = await boards();
    const out = await codeMode(board).run(`const a = 1;\nconst b = ;\nreturn a;`);
    expect(out.error).toMatchObject({ name: "SyntaxError", line: 2, message: expect.stringMatching(/line 2/) });
  });

  it("a thrown Error and a thrown non-Error value", async () => {
    const { board } = await boards();
    const code = codeMode(board);
    expect((await code.run(`\nthrow new RangeError("too far");`)).error).toEqual({ name: "RangeError", message: "too far (line 2)", line: 2 });
    expect((await code.run(`throw { code: 7 };`)).error).toMatchObject({ name: "Error", message: expect.stringMatching(/not an Error: \{"code":7\}/) });
  });

  it("an unknown tool or server names the tool and the line, listing what there is", async () => {
    const { board } = await boards();
    const code = codeMode(board);
    const tool = await code.run(`\nawait tools.math.multiply({ a: 1 });`);
    expect(tool.error).toMatchObject({
      name: "ToolError",
      line: 2,
      message: expect.stringMatching(/unknown tool tools\["math"\]\["multiply"\]; this server has: add, fail/),
    });
    const server = await code.run(`await tools.weather.today();`);
    expect(server.error?.message).toMatch(/unknown tool tools\["weather"\]\["today"\]; the servers are: crm, math/);
  });

  it("wrong argument types: the server's refusal names the tool and the line; non-object arguments never leave", async () => {
    const sent: string[] = [];
    const { board, seen } = await boards({ hooks: { before: (context) => void sent.push(context.name) } });
    const code = codeMode(board);
    const wrong = await code.run(`\n\nreturn await tools.math.add({ a: "one", b: 2 });`);
    expect(wrong.error).toMatchObject({ name: "ToolError", line: 3, message: expect.stringMatching(/tools\["math"\]\["add"\]: .*expected number/s) });
    const array = await code.run(`return await tools.math.add([1, 2]);`);
    expect(array.error).toMatchObject({ name: "TypeError", message: expect.stringMatching(/must be one object, got an array/) });
    // The SDK server checks the arguments before its handler runs; only the wrong object reached the board.
    expect(seen.calls).toEqual([]);
    expect(sent).toEqual(["math__add"]);
  });

  it("output is cut at maxOutputChars with a note; so are the logs", async () => {
    const { board } = await boards();
    const code = codeMode(board, { maxOutputChars: 100 });
    const out = await code.run(`for (let i = 0; i < 50; i++) console.log("line " + i);\nreturn "y".repeat(500);`);
    expect(out.value).toMatch(/^"y{99}… \[402 more characters left out/);
    expect(out.logs.join("\n").length).toBeLessThan(200);
    expect(out.logs.at(-1)).toMatch(/more characters of logs left out/);
  });

  it("bad options are ConfigErrors naming the field", async () => {
    const { board } = await boards();
    expect(() => codeMode(board, { timeoutMs: -1 })).toThrow(ConfigError);
    expect(() => codeMode(board, { timeoutMs: -1 })).toThrow(/timeoutMs/);
    expect(() => codeMode(board, { maxStackBytes: 64 * 1024 * 1024 })).toThrow(/maxStackBytes/);
    expect(() => codeMode(board, { memoryLimitBytes: 1000 })).toThrow(/memoryLimitBytes/);
    await expect(codeMode(board).run(42 as unknown as string)).rejects.toThrow(/source/);
  });
});

describe("run_code for models", () => {
  it("the tool carries the declarations; the OpenAI, Anthropic and Gemini runners execute it and an error is an error result", async () => {
    const { board } = await boards();
    const code = codeMode(board);
    const tool = await code.tool();
    expect(tool.name).toBe("run_code");
    expect(tool.description).toContain(await code.declarations());
    expect(await code.listTools()).toEqual([tool]);
    const calls: OpenAIChatToolCall[] = [
      {
        id: "call_1",
        type: "function",
        function: { name: "run_code", arguments: JSON.stringify({ code: "return (await tools.crm.get_customer({ id: 'c5' })).name;" }) },
      },
      { id: "call_2", type: "function", function: { name: "run_code", arguments: JSON.stringify({ code: "\nnull.x" }) } },
    ];
    const [ok, failed] = await runOpenAIToolCalls(code, calls);
    expect(ok).toMatchObject({ role: "tool", tool_call_id: "call_1", content: "Customer 5" });
    expect(JSON.stringify(failed)).toMatch(/Error: TypeError: cannot read property 'x' of null \(line 2\)/);
    const [anthropic] = await runAnthropicToolUses(code, [{ type: "tool_use", id: "toolu_1", name: "run_code", input: { code: "return 6 * 7;" } }]);
    expect(anthropic).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "42" }] });
    const [gemini] = await runGeminiFunctionCalls(code, [{ name: "run_code", args: { code: "return [1, 2];" } }]);
    expect(JSON.stringify(gemini)).toContain("[1,2]");
    expect((await code.callTool("run_code", {})).isError).toBe(true);
    await expect(code.callTool("other", {})).rejects.toThrow(/Unknown tool: other/);
  });
});
