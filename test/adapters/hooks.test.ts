/**
 * Switchboard hooks that act: `before` rewrites a tool call's arguments, `after` replaces the result,
 * `approve` sees the tool's annotations and may refuse. A refusal reaches the model as an error tool
 * result through the runners (never a thrown error), and the server never sees the refused call.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Switchboard, memoryPair, runAnthropicToolUse, runOpenAIToolCall, type ApprovalRequest, type SwitchboardHooks } from "../../src/index.js";
import { toSdkTransport } from "../helpers/sdk-bridge.js";

let boards: Switchboard[] = [];
afterEach(async () => {
  await Promise.all(boards.map((b) => b.stop()));
  boards = [];
});

async function startBoard(hooks: SwitchboardHooks): Promise<{ board: Switchboard; deleted: string[] }> {
  const deleted: string[] = [];
  const transport = () => {
    const [clientSide, serverSide] = memoryPair();
    const server = new McpServer({ name: "files", version: "1.0.0" });
    server.registerTool("read", { description: "Reads a file.", inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } }, async ({ path }) => ({
      content: [{ type: "text", text: `contents of ${path}` }],
    }));
    server.registerTool(
      "delete",
      { description: "Deletes a file.", inputSchema: { path: z.string() }, annotations: { destructiveHint: true } },
      async ({ path }) => {
        deleted.push(path);
        return { content: [{ type: "text", text: `deleted ${path}` }] };
      },
    );
    void server.connect(toSdkTransport(serverSide));
    return clientSide;
  };
  const board = new Switchboard({ servers: { files: { transport } }, client: { protocol: "legacy" }, hooks });
  boards.push(board);
  await board.start();
  await board.listTools();
  return { board, deleted };
}

describe("hooks that act", () => {
  it("before may rewrite the arguments, after may replace the result", async () => {
    const { board } = await startBoard({
      before: (context) => (context.name === "files__read" ? { args: { path: `/sandbox${(context.args as { path: string }).path}` } } : undefined),
      after: async (context, result) =>
        context.name === "files__read"
          ? { result: { content: [{ type: "text", text: `[${context.server}] ${(result as { content: Array<{ text: string }> }).content[0].text}` }] } }
          : undefined,
    });
    expect(await board.callTool("files__read", { path: "/a.txt" })).toEqual({ content: [{ type: "text", text: "[files] contents of /sandbox/a.txt" }] });
  });

  it("hooks written as methods of an object keep their `this` (found by lint: unbound-method)", async () => {
    class Policy implements SwitchboardHooks {
      readonly seen: string[] = [];
      before(context: { name: string }) {
        this.seen.push(`before ${context.name}`);
      }
      approve() {
        this.seen.push("approve");
        return true;
      }
      after(context: { name: string }) {
        this.seen.push(`after ${context.name}`);
        return undefined;
      }
    }
    const policy = new Policy();
    const { board } = await startBoard(policy);
    await board.callTool("files__read", { path: "/a.txt" });
    expect(policy.seen).toEqual(["before files__read", "approve", "after files__read"]);
  });

  it("approve sees the annotations and may refuse; the refusal is an isError result the model reads", async () => {
    const asked: ApprovalRequest[] = [];
    const { board, deleted } = await startBoard({
      approve: async (request) => {
        asked.push(request);
        return request.annotations?.destructiveHint ? { allow: false, reason: `${request.tool} is destructive` } : true;
      },
    });
    expect(await board.callTool("files__delete", { path: "/etc" })).toEqual({
      isError: true,
      content: [{ type: "text", text: "Call refused: delete is destructive" }],
    });
    expect(deleted).toEqual([]);
    expect(asked[0]).toEqual({ server: "files", tool: "delete", name: "files__delete", args: { path: "/etc" }, annotations: { destructiveHint: true } });
    const forModel = await runAnthropicToolUse(board, { type: "tool_use", id: "t1", name: "files__delete", input: { path: "/etc" } });
    expect(forModel).toEqual({
      type: "tool_result",
      tool_use_id: "t1",
      is_error: true,
      content: [{ type: "text", text: "Call refused: delete is destructive" }],
    });
    expect((await board.callTool("files__read", { path: "/a" })).content).toEqual([{ type: "text", text: "contents of /a" }]);
  });

  it("an approve hook that says false or throws refuses (fail closed), and the agent loop goes on", async () => {
    let mode: "false" | "throw" = "false";
    const { board, deleted } = await startBoard({
      approve: () => {
        if (mode === "throw") throw new Error("policy service unreachable");
        return false;
      },
    });
    expect((await board.callTool("files__delete", { path: "/x" })).content).toEqual([{ type: "text", text: "Call refused: files__delete was not approved" }]);
    mode = "throw";
    const answer = await runOpenAIToolCall(board, { type: "function_call", call_id: "c", name: "files__delete", arguments: '{"path":"/x"}' });
    expect(answer).toEqual({ type: "function_call_output", call_id: "c", output: "Call refused: the approve hook failed (policy service unreachable)" });
    expect(deleted).toEqual([]);
  });

  it("approve sees the arguments as before rewrote them; a before hook that throws is reported and changes nothing", async () => {
    const seen: unknown[] = [];
    const errors: string[] = [];
    const { board } = await startBoard({
      before: (context) => {
        if ((context.args as { path: string }).path === "/boom") throw new Error("before bug");
        return { args: { path: "/rewritten" } };
      },
      approve: (request) => {
        seen.push(request.args);
        return { allow: true };
      },
    });
    board.on("error", (event) => errors.push(event.error.message));
    await board.callTool("files__read", { path: "/a" });
    expect((await board.callTool("files__read", { path: "/boom" })).content).toEqual([{ type: "text", text: "contents of /boom" }]);
    expect(seen).toEqual([{ path: "/rewritten" }, { path: "/boom" }]);
    expect(errors).toEqual(["A Switchboard hook threw: before bug"]);
  });
});
