/**
 * Telemetry beyond one plain call: the 2026-07-28 era (the official SDK v2 server), a Switchboard with
 * board-wide telemetry, and the agent-loop spans (a tool execution that an MCP call enriches instead of
 * opening a second span; a model call).
 */
import { context, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE, ATTR_NETWORK_TRANSPORT, ATTR_SERVER_PORT } from "@opentelemetry/semantic-conventions";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_SESSION_ID,
} from "@opentelemetry/semantic-conventions/incubating";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connect, runAgent, Switchboard, type AgentModel, type McpClient } from "../../src/index.js";
import { toolSpanContext } from "../../src/telemetry/index.js";
import { startSdkV2Http } from "../fixtures/sdk-v2-http.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { otelHarness, type Harness } from "./otel-harness.js";

const track = closeAfterEach();
const harness = otelHarness();
const tracedStdio = { command: process.execPath, args: [fileURLToPath(new URL("./fixtures/traced-stdio.mjs", import.meta.url))] };

const metaOf = (result: { content?: unknown }) => JSON.parse((result.content as { text: string }[])[0].text) as Record<string, unknown>;
const toolCalls = (h: Harness) => h.spans().filter((span) => span.attributes[ATTR_MCP_METHOD_NAME] === "tools/call");

async function stdioClient(h: Harness): Promise<McpClient> {
  return track(await connect(tracedStdio, { protocol: "legacy", telemetry: h.telemetry }));
}

describe("the 2026-07-28 era (SDK v2 server over HTTP)", () => {
  it("carries the same attributes, with protocol version 2026-07-28 and no session id; the server gets the traceparent", async () => {
    const server = track(await startSdkV2Http("reject"));
    const h = await harness();
    const client = track(await connect({ url: server.url }, { telemetry: h.telemetry }));
    await client.callTool("echo", { text: "hi" });
    const [span] = toolCalls(h);
    expect(toolCalls(h)).toHaveLength(1);
    expect(span.name).toBe("tools/call echo");
    expect(span.attributes).toMatchObject({
      [ATTR_GEN_AI_TOOL_NAME]: "echo",
      [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool",
      [ATTR_JSONRPC_REQUEST_ID]: expect.any(String),
      [ATTR_MCP_PROTOCOL_VERSION]: "2026-07-28",
      [ATTR_NETWORK_TRANSPORT]: "tcp",
      [ATTR_SERVER_PORT]: Number(new URL(server.url).port),
    });
    expect(span.attributes[ATTR_MCP_SESSION_ID]).toBeUndefined();
    const sent = server.requests.find((request) => request.body?.method === "tools/call")!;
    const meta = sent.body!.params!._meta as Record<string, unknown>;
    expect(meta.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    // The era's own _meta envelope is kept beside the trace context.
    expect(meta["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
  });
});

describe("a Switchboard with telemetry in its client options", () => {
  it("traces every server's calls, named by the server's own tool name", async () => {
    const h = await harness();
    const board = new Switchboard({ servers: { a: tracedStdio, b: tracedStdio }, client: { protocol: "legacy", telemetry: h.telemetry } });
    track({ close: () => board.stop() });
    await board.start();
    await board.callTool("a__meta", {});
    await board.callTool("b__fail", {});
    expect(
      toolCalls(h)
        .map((span) => span.name)
        .sort(),
    ).toEqual(["tools/call fail", "tools/call meta"]);
  });
});

describe("agent-loop spans", () => {
  it("a tools/call inside a tool span the caller opened enriches that span instead of opening a CLIENT span", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    const tracer = h.tracerProvider.getTracer("agent");
    const toolSpan = tracer.startSpan("execute_tool files__meta", {
      attributes: { [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool", [ATTR_GEN_AI_TOOL_NAME]: "files__meta" },
    });
    const result = await context.with(toolSpanContext(toolSpan), () => client.callTool("meta", {}));
    toolSpan.end();

    expect(h.spans().filter((span) => span.kind === SpanKind.CLIENT && span.name.startsWith("tools/call"))).toEqual([]);
    const [ended] = h.spans().filter((span) => span.name === "execute_tool files__meta");
    expect(ended.attributes).toMatchObject({
      [ATTR_GEN_AI_TOOL_NAME]: "files__meta",
      [ATTR_MCP_METHOD_NAME]: "tools/call",
      [ATTR_JSONRPC_REQUEST_ID]: expect.any(String),
      [ATTR_MCP_PROTOCOL_VERSION]: "2025-11-25",
      [ATTR_NETWORK_TRANSPORT]: "pipe",
    });
    // The server's parent is the tool span itself.
    expect(metaOf(result).traceparent).toBe(`00-${toolSpan.spanContext().traceId}-${toolSpan.spanContext().spanId}-01`);
  });

  it("a second tools/call in the same tool span (a retry) gets a CLIENT span of its own, under the tool span", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    const toolSpan = h.tracerProvider.getTracer("agent").startSpan("execute_tool meta");
    await context.with(toolSpanContext(toolSpan), async () => {
      await client.callTool("meta", {});
      await client.callTool("meta", {});
    });
    toolSpan.end();
    const [second] = toolCalls(h).filter((span) => span.kind === SpanKind.CLIENT);
    expect(second.name).toBe("tools/call meta");
    expect(second.parentSpanContext?.spanId).toBe(toolSpan.spanContext().spanId);
  });

  it("toolExecution() opens execute_tool {name}, enriched by the MCP call; an isError result is tool_error", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    const result = await h.telemetry.toolExecution({ name: "files__fail", callId: "call_1" }, () => client.callTool("fail", {}));
    expect(result.isError).toBe(true);
    expect(toolCalls(h).filter((span) => span.kind === SpanKind.CLIENT)).toEqual([]);
    const [span] = h.spans().filter((s) => s.name === "execute_tool files__fail");
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool",
      [ATTR_GEN_AI_TOOL_NAME]: "files__fail",
      [ATTR_GEN_AI_TOOL_CALL_ID]: "call_1",
      [ATTR_MCP_METHOD_NAME]: "tools/call",
      [ATTR_ERROR_TYPE]: "tool_error",
    });
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("toolExecution() records a thrown error and rethrows it", async () => {
    const h = await harness();
    await expect(h.telemetry.toolExecution({ name: "local" }, () => Promise.reject(new RangeError("bad input")))).rejects.toThrow("bad input");
    const [span] = h.spans();
    expect(span.attributes[ATTR_ERROR_TYPE]).toBe("RangeError");
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "bad input" });
  });

  it("modelCall() opens chat {model} (CLIENT) and records the response's model, reasons and token usage", async () => {
    const h = await harness();
    const answer = await h.telemetry.modelCall({ provider: "openai", model: "gpt-test" }, (recorder) => {
      recorder.response({ model: "gpt-test-2026", finishReasons: ["tool_calls"], inputTokens: 12, outputTokens: 7 });
      return "ok";
    });
    expect(answer).toBe("ok");
    const [span] = h.spans();
    expect(span.name).toBe("chat gpt-test");
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: "chat",
      [ATTR_GEN_AI_PROVIDER_NAME]: "openai",
      [ATTR_GEN_AI_REQUEST_MODEL]: "gpt-test",
      [ATTR_GEN_AI_RESPONSE_FINISH_REASONS]: ["tool_calls"],
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 12,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 7,
    });
  });
});

describe("runAgent with telemetry.agentEvents()", () => {
  it("one chat span per model call with its usage, one execute_tool span per tool call that the MCP call enriches", async () => {
    const h = await harness();
    const board = new Switchboard({ servers: { files: tracedStdio }, client: { protocol: "legacy", telemetry: h.telemetry } });
    track({ close: () => board.stop() });
    await board.start();
    // A model of our own: round 1 asks for two tools at once, round 2 answers.
    const model: AgentModel = async ({ turn }) =>
      turn === 1
        ? {
            message: {
              role: "assistant",
              content: [
                { type: "tool_use", id: "c1", name: "files__meta", input: {} },
                { type: "tool_use", id: "c2", name: "files__fail", input: {} },
              ],
            },
            usage: { inputTokens: 30, outputTokens: 8 },
            stopReason: "tool_calls",
          }
        : { message: { role: "assistant", content: [{ type: "text", text: "done" }] }, usage: { inputTokens: 50, outputTokens: 2 }, stopReason: "stop" };
    const run = await runAgent({ model, host: board, messages: "go", events: h.telemetry.agentEvents({ provider: "openai", model: "gpt-test" }) });
    expect(run.stopReason).toBe("end");

    const chats = h.spans().filter((span) => span.name === "chat gpt-test");
    expect(chats.map((span) => [span.attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS], span.attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS]])).toEqual([
      [30, ["tool_calls"]],
      [50, ["stop"]],
    ]);
    // No CLIENT tools/call spans: each MCP call enriched its execute_tool span.
    expect(toolCalls(h).filter((span) => span.kind === SpanKind.CLIENT)).toEqual([]);
    const meta = h.spans().find((span) => span.name === "execute_tool files__meta")!;
    expect(meta.attributes).toMatchObject({ [ATTR_GEN_AI_TOOL_CALL_ID]: "c1", [ATTR_MCP_METHOD_NAME]: "tools/call", [ATTR_NETWORK_TRANSPORT]: "pipe" });
    expect(meta.status.code).not.toBe(SpanStatusCode.ERROR);
    const fail = h.spans().find((span) => span.name === "execute_tool files__fail")!;
    expect(fail.attributes[ATTR_ERROR_TYPE]).toBe("tool_error");
    expect(fail.status.code).toBe(SpanStatusCode.ERROR);
  });
});
