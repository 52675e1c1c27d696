/**
 * runAgent with a model written by hand (the function shape, no SDK) over an McpClient: bad tool calls
 * become error results the model reads, a failing model rejects with the trace so far, bad options are
 * typed errors, and the instrumentation events (start/end with timing, `around`) see every model call
 * and tool execution in order.
 */
import { describe, expect, it } from "vitest";
import {
  ConfigError,
  connect,
  ModelCallError,
  runAgent,
  type AgentModel,
  type McpClient,
  type ModelRequest,
  type SpanInfo,
  type TraceMessage,
} from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { echoServer, node } from "./helpers.js";

const closing = closeAfterEach();
const echo = (): Promise<McpClient> =>
  connect({ command: node, args: [echoServer], env: { ECHO_SERVER_NAME: "echo-one" } }, { protocol: "legacy" }).then(closing);

/** A model that replays assistant messages and records what it saw: a user's own model in a few lines. */
function replay(...answers: TraceMessage["content"][]): { model: AgentModel; seen: ModelRequest[] } {
  const seen: ModelRequest[] = [];
  const model: AgentModel = async (request) => {
    seen.push({ ...request, messages: [...request.messages] });
    const content = answers[seen.length - 1];
    if (content === undefined) throw new Error(`no answer ${seen.length}`);
    return { message: { role: "assistant", content }, usage: { inputTokens: 10 * seen.length, outputTokens: 1 }, stopReason: "scripted" };
  };
  return { model, seen };
}

describe("runAgent with a model of your own over an McpClient", () => {
  it("runs the calls; unknown tools and bad arguments are error results the model reads", async () => {
    const client = await echo();
    const { model, seen } = replay(
      [
        { type: "tool_use", id: "1", name: "add", input: { a: 2, b: 2 } },
        { type: "tool_use", id: "2", name: "nope", input: {} },
        { type: "tool_use", id: "3", name: "echo", input: '{"text": "unterminated' },
        { type: "tool_use", id: "4", name: "echo", input: [1, 2] },
        { type: "tool_use", id: "5", name: "echo", input: '{"text":"from a JSON string"}' },
        { type: "tool_use", id: "6", name: "fail", input: {} },
      ],
      [{ type: "text", text: "four" }],
    );
    const result = await runAgent({ model, host: client, messages: "What is 2 + 2?" });
    expect(result).toMatchObject({ stopReason: "end", partial: false, turns: 2, text: "four", usage: { inputTokens: 30, outputTokens: 2 } });
    expect(seen[0].tools.map((tool) => tool.name)).toContain("add");
    expect(seen[0].turn).toBe(1);
    const results = seen[1].messages[2].content;
    expect(results).toEqual([
      { type: "tool_result", toolUseId: "1", isError: false, content: [{ type: "text", text: "4" }] },
      { type: "tool_result", toolUseId: "2", isError: true, content: [{ type: "text", text: "Error: No tool named nope is available" }] },
      {
        type: "tool_result",
        toolUseId: "3",
        isError: true,
        content: [{ type: "text", text: expect.stringMatching(/^Error: the arguments for echo are not valid JSON \(/) }],
      },
      {
        type: "tool_result",
        toolUseId: "4",
        isError: true,
        content: [{ type: "text", text: "Error: Arguments for echo must be a JSON object, got an array" }],
      },
      { type: "tool_result", toolUseId: "5", isError: false, content: [{ type: "text", text: "from a JSON string" }] },
      { type: "tool_result", toolUseId: "6", isError: true, content: [{ type: "text", text: "this tool always fails" }] },
    ]);
    const calls = result.steps[0].toolCalls;
    expect(calls.map((call) => [call.server, call.failure])).toEqual([
      ["echo-one", undefined],
      [undefined, "unknown_tool"],
      [undefined, "invalid_arguments"],
      [undefined, "invalid_arguments"],
      ["echo-one", undefined],
      ["echo-one", undefined],
    ]);
    expect(result.steps[0]).toMatchObject({ turn: 1, modelStopReason: "scripted", usage: { inputTokens: 10, outputTokens: 1 } });
  });

  it("a failing model rejects with ModelCallError carrying the trace so far", async () => {
    const client = await echo();
    const { model } = replay([{ type: "tool_use", id: "1", name: "add", input: { a: 1, b: 1 } }]);
    const error = await runAgent({ model, host: client, messages: "Add." }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelCallError);
    const failure = error as ModelCallError;
    expect(failure.message).toBe("The model call of turn 2 failed: no answer 2");
    expect(failure.turn).toBe(2);
    expect(failure.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(failure.steps).toHaveLength(1);
    expect(failure.usage).toEqual({ inputTokens: 10, outputTokens: 1 });
  });

  it("a model answer that is not an assistant message is a ModelCallError that says what was wrong", async () => {
    const client = await echo();
    const wrongRole: AgentModel = async () => ({ message: { role: "user", content: [] } });
    await expect(runAgent({ model: wrongRole, host: client, messages: "Hi" })).rejects.toThrow(
      'The model call of turn 1 failed: the model\'s message has role "user"; expected "assistant"',
    );
    const badBlock: AgentModel = async () => ({ message: { role: "assistant", content: [{ type: "image" } as never] } });
    await expect(runAgent({ model: badBlock, host: client, messages: "Hi" })).rejects.toThrow(
      /model answer of turn 1: message 0 \(assistant\), block 0: unknown block type "image"/,
    );
  });

  it("bad options are ConfigErrors naming the field", async () => {
    const client = await echo();
    const { model } = replay([{ type: "text", text: "hi" }]);
    await expect(runAgent({ model, host: client, messages: "Hi", maxTurns: 0 })).rejects.toThrow(ConfigError);
    await expect(runAgent({ model, host: client, messages: "Hi", maxTurns: 1.5 })).rejects.toThrow(/field "maxTurns": expected a whole number >= 1/);
    await expect(runAgent({ model: "gpt-4o" as never, host: client, messages: "Hi" })).rejects.toThrow(/field "model"/);
    await expect(runAgent({ model, host: {} as never, messages: "Hi" })).rejects.toThrow(/field "host": expected a Switchboard or an McpClient/);
    await expect(runAgent({ model, host: client, messages: [{ role: "robot", content: [] }] as never })).rejects.toThrow(
      /runAgent messages: message 0 needs a role of system, user, assistant or tool, found "robot"/,
    );
  });

  it("the events see each model call and tool execution, start before end, each inside around", async () => {
    const client = await echo();
    const { model } = replay(
      [
        { type: "tool_use", id: "a", name: "echo", input: { text: "x" } },
        { type: "tool_use", id: "b", name: "add", input: { a: 1, b: 2 } },
      ],
      [{ type: "text", text: "done" }],
    );
    const log: string[] = [];
    let depth = 0;
    const result = await runAgent({
      model,
      host: client,
      messages: "Go.",
      onStep: (step) => void log.push(`step ${step.turn}`),
      events: {
        modelCallStart: (e) => void log.push(`model start ${e.turn} ${e.messages.length}`),
        modelCallEnd: (e) => void log.push(`model end ${e.turn} ${e.response?.message.content.length} ${e.durationMs >= 0}`),
        toolCallStart: (e) => void log.push(`tool start ${e.toolUseId} ${e.server}/${e.tool}`),
        toolCallEnd: (e) => void log.push(`tool end ${e.toolUseId} ${e.record.server} ${e.result.isError} ${e.durationMs >= 0}`),
        around: async <T>(span: SpanInfo, run: () => Promise<T>) => {
          depth++;
          log.push(`around ${span.kind} ${span.kind === "tool" ? span.start.toolUseId : span.start.turn} depth ${depth}`);
          try {
            return await run();
          } finally {
            depth--;
          }
        },
      },
    });
    expect(result.text).toBe("done");
    expect(log).toEqual([
      "model start 1 1",
      "around model 1 depth 1",
      "model end 1 2 true",
      "tool start a echo-one/echo",
      "around tool a depth 1",
      "tool start b echo-one/add",
      "around tool b depth 2",
      "tool end a echo-one false true",
      "tool end b echo-one false true",
      "step 1",
      "model start 2 3",
      "around model 2 depth 1",
      "model end 2 1 true",
      "step 2",
    ]);
  });

  it("an onStep that throws ends the run with its error", async () => {
    const client = await echo();
    const { model } = replay([{ type: "text", text: "hi" }]);
    await expect(runAgent({ model, host: client, messages: "Hi", onStep: () => Promise.reject(new Error("stop here")) })).rejects.toThrow("stop here");
  });
});
