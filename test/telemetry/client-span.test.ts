/**
 * The telemetry of docs/guide/telemetry.md "Telemetry", against the official SDK v1 McpServer over stdio and Streamable HTTP: a
 * `callTool` makes exactly one CLIENT span with exactly the MCP conventions' attributes (names checked
 * against @opentelemetry/semantic-conventions), the operation histogram with the advised buckets, the
 * session histogram after close, and the server receives the span's `traceparent` in `_meta`.
 */
import { SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import {
  ATTR_ERROR_TYPE,
  ATTR_NETWORK_PROTOCOL_NAME,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_NETWORK_TRANSPORT,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
} from "@opentelemetry/semantic-conventions";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_JSONRPC_REQUEST_ID,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_PROTOCOL_VERSION,
  ATTR_MCP_RESOURCE_URI,
  ATTR_MCP_SESSION_ID,
  ATTR_RPC_RESPONSE_STATUS_CODE,
  METRIC_MCP_CLIENT_OPERATION_DURATION,
  METRIC_MCP_CLIENT_SESSION_DURATION,
} from "@opentelemetry/semantic-conventions/incubating";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connect, ProtocolError, RequestTimeoutError, type McpClient } from "../../src/index.js";
import { startStreamableHttpServer } from "../fixtures/http-servers.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
// @ts-expect-error: plain JS test server
import { createTracedServer } from "./fixtures/traced-tools.mjs";
import { otelHarness, type Harness } from "./otel-harness.js";

const track = closeAfterEach();
const harness = otelHarness();
const tracedStdio = { command: process.execPath, args: [fileURLToPath(new URL("./fixtures/traced-stdio.mjs", import.meta.url))] };
const ADVISED_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

function textOf(result: { content?: unknown }): string {
  return (result.content as { text: string }[])[0].text;
}

function spansNamed(h: Harness, name: string) {
  return h.spans().filter((span) => span.name === name);
}

async function stdioClient(h: Harness): Promise<McpClient> {
  return track(await connect(tracedStdio, { protocol: "legacy", telemetry: h.telemetry }));
}

describe("telemetry over stdio (SDK v1 McpServer)", () => {
  it("a callTool makes one CLIENT span with exactly the MCP attributes, and the server gets its traceparent", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    const result = await client.callTool("meta", {});

    const calls = h.spans().filter((span) => span.attributes[ATTR_MCP_METHOD_NAME] === "tools/call");
    expect(calls).toHaveLength(1);
    const [span] = calls;
    expect(span.name).toBe("tools/call meta");
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toEqual({
      [ATTR_MCP_METHOD_NAME]: "tools/call",
      [ATTR_GEN_AI_TOOL_NAME]: "meta",
      [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool",
      [ATTR_JSONRPC_REQUEST_ID]: expect.stringMatching(/^\d+$/),
      [ATTR_MCP_PROTOCOL_VERSION]: "2025-11-25",
      [ATTR_NETWORK_TRANSPORT]: "pipe",
    });
    const meta = JSON.parse(textOf(result)) as Record<string, unknown>;
    expect(meta.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
  });

  it("the session's other messages get spans too: initialize (with the version it learned), notifications/initialized", async () => {
    const h = await harness();
    await stdioClient(h);
    const [initialize] = spansNamed(h, "initialize");
    expect(initialize.attributes).toMatchObject({
      [ATTR_MCP_METHOD_NAME]: "initialize",
      [ATTR_MCP_PROTOCOL_VERSION]: "2025-11-25",
      [ATTR_JSONRPC_REQUEST_ID]: expect.any(String),
    });
    const [initialized] = spansNamed(h, "notifications/initialized");
    expect(initialized.attributes[ATTR_JSONRPC_REQUEST_ID]).toBeUndefined();
    // Sent before the connection is ready, it still names the version the initialize response gave.
    expect(initialized.attributes[ATTR_MCP_PROTOCOL_VERSION]).toBe("2025-11-25");
    expect(initialized.kind).toBe(SpanKind.CLIENT);
  });

  it("records mcp.client.operation.duration with the advised buckets, and the session duration once closed", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    await client.callTool("meta", {});
    await client.close();
    await h.collect();
    const points = h.histogram(METRIC_MCP_CLIENT_OPERATION_DURATION);
    const call = points.find((point) => point.attributes[ATTR_MCP_METHOD_NAME] === "tools/call")!;
    expect(call.attributes).toEqual({
      [ATTR_MCP_METHOD_NAME]: "tools/call",
      [ATTR_GEN_AI_TOOL_NAME]: "meta",
      [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool",
      [ATTR_MCP_PROTOCOL_VERSION]: "2025-11-25",
      [ATTR_NETWORK_TRANSPORT]: "pipe",
    });
    expect(call.value.count).toBe(1);
    expect(call.value.buckets.boundaries).toEqual(ADVISED_BUCKETS);
    const sessions = h.histogram(METRIC_MCP_CLIENT_SESSION_DURATION);
    expect(sessions).toHaveLength(1);
    expect(sessions[0].value.count).toBe(1);
    expect(sessions[0].value.buckets.boundaries).toEqual(ADVISED_BUCKETS);
    expect(sessions[0].attributes).toEqual({ [ATTR_MCP_PROTOCOL_VERSION]: "2025-11-25", [ATTR_NETWORK_TRANSPORT]: "pipe" });
  });

  it("a tool result with isError: true is error.type tool_error, status ERROR", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    const result = await client.callTool("fail", {});
    expect(result.isError).toBe(true);
    const [span] = spansNamed(h, "tools/call fail");
    expect(span.attributes[ATTR_ERROR_TYPE]).toBe("tool_error");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    await h.collect();
    const point = h.histogram(METRIC_MCP_CLIENT_OPERATION_DURATION).find((p) => p.attributes[ATTR_GEN_AI_TOOL_NAME] === "fail")!;
    expect(point.attributes[ATTR_ERROR_TYPE]).toBe("tool_error");
  });

  it("a JSON-RPC error is error.type and rpc.response.status_code = its code, with the server's message as status", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    const error = await client.getPrompt("missing").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    const [span] = spansNamed(h, "prompts/get missing");
    expect(span.attributes).toMatchObject({ [ATTR_GEN_AI_PROMPT_NAME]: "missing", [ATTR_ERROR_TYPE]: "-32602", [ATTR_RPC_RESPONSE_STATUS_CODE]: "-32602" });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "MCP error -32602: Prompt missing not found" });
  });

  it("a timeout is error.type RequestTimeoutError", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    await expect(client.callTool("slow", { ms: 500 }, { timeoutMs: 50 })).rejects.toBeInstanceOf(RequestTimeoutError);
    const [span] = spansNamed(h, "tools/call slow");
    expect(span.attributes[ATTR_ERROR_TYPE]).toBe("RequestTimeoutError");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("prompts/get is named by the prompt; resources/read carries mcp.resource.uri but not in its name", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    await client.getPrompt("greet");
    await client.readResource("note://one");
    expect(spansNamed(h, "prompts/get greet")[0].attributes[ATTR_GEN_AI_PROMPT_NAME]).toBe("greet");
    const [read] = spansNamed(h, "resources/read");
    expect(read.attributes[ATTR_MCP_RESOURCE_URI]).toBe("note://one");
  });

  it("the caller's active span is the parent of the CLIENT span", async () => {
    const h = await harness();
    const client = await stdioClient(h);
    const tracer = h.tracerProvider.getTracer("test");
    await tracer.startActiveSpan("agent step", async (parent) => {
      await client.callTool("meta", {});
      parent.end();
    });
    const [parent] = spansNamed(h, "agent step");
    const [call] = spansNamed(h, "tools/call meta");
    expect(call.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(call.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });

  it("without the telemetry option nothing is recorded, even with a global tracer provider", async () => {
    const h = await harness();
    trace.setGlobalTracerProvider(h.tracerProvider);
    try {
      const client = track(await connect(tracedStdio, { protocol: "legacy" }));
      const meta = JSON.parse(textOf(await client.callTool("meta", {}))) as Record<string, unknown>;
      expect(meta.traceparent).toBeUndefined();
      expect(h.spans()).toEqual([]);
    } finally {
      trace.disable();
    }
  });
});

describe("telemetry over Streamable HTTP (SDK v1 McpServer, stateful)", () => {
  it("adds the session id, the network protocol and the server's address to the same span", async () => {
    const server = track(await startStreamableHttpServer({ stateful: true, createServer: () => createTracedServer() }));
    const h = await harness();
    const client = track(await connect({ url: server.url }, { protocol: "legacy", telemetry: h.telemetry }));
    const result = await client.callTool("meta", {});
    const calls = h.spans().filter((span) => span.attributes[ATTR_MCP_METHOD_NAME] === "tools/call");
    expect(calls).toHaveLength(1);
    const [span] = calls;
    const sessionId = client.connection.transport.sessionId;
    expect(sessionId).toEqual(expect.any(String));
    expect(span.attributes).toEqual({
      [ATTR_MCP_METHOD_NAME]: "tools/call",
      [ATTR_GEN_AI_TOOL_NAME]: "meta",
      [ATTR_GEN_AI_OPERATION_NAME]: "execute_tool",
      [ATTR_JSONRPC_REQUEST_ID]: expect.stringMatching(/^\d+$/),
      [ATTR_MCP_PROTOCOL_VERSION]: "2025-11-25",
      [ATTR_MCP_SESSION_ID]: sessionId,
      [ATTR_NETWORK_TRANSPORT]: "tcp",
      [ATTR_NETWORK_PROTOCOL_NAME]: "http",
      [ATTR_NETWORK_PROTOCOL_VERSION]: "1.1",
      [ATTR_SERVER_ADDRESS]: "127.0.0.1",
      [ATTR_SERVER_PORT]: server.port,
    });
    const meta = JSON.parse(textOf(result)) as Record<string, unknown>;
    expect(meta.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
    // The session id came with the initialize response: its span has it too.
    expect(spansNamed(h, "initialize")[0].attributes[ATTR_MCP_SESSION_ID]).toBe(sessionId);
    await h.collect();
    const point = h.histogram(METRIC_MCP_CLIENT_OPERATION_DURATION).find((p) => p.attributes[ATTR_MCP_METHOD_NAME] === "tools/call")!;
    // The metric leaves out what identifies one request or session.
    expect(point.attributes[ATTR_MCP_SESSION_ID]).toBeUndefined();
    expect(point.attributes[ATTR_JSONRPC_REQUEST_ID]).toBeUndefined();
    expect(point.attributes[ATTR_SERVER_PORT]).toBe(server.port);
  });
});
