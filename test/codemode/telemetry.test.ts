/**
 * Code mode's spans: a `code.run` span per run with each tool call an `execute_tool` child, which the
 * MCP `tools/call` inside enriches (one span per call, not two); a failed run records its error type.
 */
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { ATTR_ERROR_TYPE } from "@opentelemetry/semantic-conventions";
import { ATTR_GEN_AI_TOOL_NAME, ATTR_MCP_METHOD_NAME } from "@opentelemetry/semantic-conventions/incubating";
import { describe, expect, it } from "vitest";
import { codeMode } from "../../src/index.js";
import { otelHarness } from "../telemetry/otel-harness.js";
import { codeBoards } from "./helpers.js";

const boards = codeBoards();
const harness = otelHarness();

describe("code mode telemetry", () => {
  it("one code.run span, each call an execute_tool child enriched by its tools/call", async () => {
    const h = await harness();
    const { board } = await boards({ client: { protocol: "legacy", telemetry: h.telemetry } });
    const code = codeMode(board, { events: h.telemetry.codeModeEvents() });
    const out = await code.run(`const [a, b] = await Promise.all([tools.math.add({ a: 1, b: 2 }), tools.crm.get_customer({ id: "c1" })]);\nreturn [a, b.id];`);
    expect(out.value).toEqual(["3", "c1"]);
    const spans = h.spans();
    const run = spans.find((span) => span.name === "code.run")!;
    expect(run.kind).toBe(SpanKind.INTERNAL);
    const children = spans.filter((span) => span.parentSpanContext?.spanId === run.spanContext().spanId);
    expect(children.map((span) => span.name).sort()).toEqual(["execute_tool crm__get_customer", "execute_tool math__add"]);
    for (const child of children) {
      expect(child.spanContext().traceId).toBe(run.spanContext().traceId);
      expect(child.attributes[ATTR_MCP_METHOD_NAME]).toBe("tools/call");
    }
    expect(children.find((span) => span.name.endsWith("math__add"))!.attributes[ATTR_GEN_AI_TOOL_NAME]).toBe("math__add");
    expect(spans.filter((span) => span.attributes[ATTR_MCP_METHOD_NAME] === "tools/call")).toHaveLength(2);
  });

  it("a warm worker's next run: its calls are children of its own code.run span, not of the run that started the worker", async () => {
    const h = await harness();
    const { board } = await boards({ client: { protocol: "legacy", telemetry: h.telemetry } });
    const code = codeMode(board, { events: h.telemetry.codeModeEvents() });
    for (let i = 0; i < 3; i++) expect((await code.run(`return (await tools.math.add({ a: ${i}, b: 1 }));`)).value).toBe(String(i + 1));
    const runs = h.spans().filter((span) => span.name === "code.run");
    const calls = h.spans().filter((span) => span.name === "execute_tool math__add");
    expect(runs).toHaveLength(3);
    expect(calls.map((call) => call.parentSpanContext?.spanId)).toEqual(runs.map((run) => run.spanContext().spanId));
  });

  it("a failed run and a tool error are recorded on their spans", async () => {
    const h = await harness();
    const { board } = await boards({ client: { protocol: "legacy", telemetry: h.telemetry } });
    const code = codeMode(board, { events: h.telemetry.codeModeEvents() });
    const out = await code.run(`await tools.math.fail();`);
    expect(out.error?.name).toBe("ToolError");
    const run = h.spans().find((span) => span.name === "code.run")!;
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.attributes[ATTR_ERROR_TYPE]).toBe("ToolError");
    const call = h.spans().find((span) => span.name === "execute_tool math__fail")!;
    expect(call.attributes[ATTR_ERROR_TYPE]).toBe("tool_error");
  });
});
