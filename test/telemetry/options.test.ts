/**
 * The opt-ins of otelInstrumentation(): tool arguments and results on the span, resource URIs in span
 * names, and a configured propagator (here W3C Baggage beside Trace Context) in place of the built-in
 * W3C Trace Context.
 */
import { propagation, type Context, type TextMapPropagator } from "@opentelemetry/api";
import { ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, ATTR_GEN_AI_TOOL_CALL_RESULT } from "@opentelemetry/semantic-conventions/incubating";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { connect } from "../../src/index.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { otelHarness } from "./otel-harness.js";

const track = closeAfterEach();
const tracedStdio = { command: process.execPath, args: [fileURLToPath(new URL("./fixtures/traced-stdio.mjs", import.meta.url))] };
const metaOf = (result: { content?: unknown }) => JSON.parse((result.content as { text: string }[])[0].text) as Record<string, unknown>;

/** Writes a fixed `baggage` key: enough to see that the configured propagator is the one used. */
const baggageOnly: TextMapPropagator = {
  inject: (_context: Context, carrier: unknown, setter) => setter.set(carrier, "baggage", "tenant=acme"),
  extract: (context: Context) => context,
  fields: () => ["baggage"],
};

describe("with the opt-ins", () => {
  const harness = otelHarness({ captureToolContent: true, resourceUriInSpanName: true, propagator: baggageOnly });

  it("records tool arguments and result, names resource spans by URI, and injects with the given propagator", async () => {
    const h = await harness();
    const client = track(await connect(tracedStdio, { protocol: "legacy", telemetry: h.telemetry }));
    const result = await client.callTool("slow", { ms: 1 });
    await client.readResource("note://one");
    const [call] = h.spans().filter((span) => span.name === "tools/call slow");
    expect(call.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]).toBe(JSON.stringify({ ms: 1 }));
    expect(call.attributes[ATTR_GEN_AI_TOOL_CALL_RESULT]).toBe(JSON.stringify(result.content));
    expect(h.spans().map((span) => span.name)).toContain("resources/read note://one");
    const meta = metaOf(await client.callTool("meta", {}));
    expect(meta.baggage).toBe("tenant=acme");
    expect(meta.traceparent).toBeUndefined();
  });
});

describe("by default", () => {
  const harness = otelHarness();

  it("uses the global propagator when one is configured", async () => {
    propagation.setGlobalPropagator(baggageOnly);
    try {
      const h = await harness();
      const client = track(await connect(tracedStdio, { protocol: "legacy", telemetry: h.telemetry }));
      const meta = metaOf(await client.callTool("meta", {}));
      expect(meta.baggage).toBe("tenant=acme");
      const [call] = h.spans().filter((span) => span.name === "tools/call meta");
      expect(call.attributes[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]).toBeUndefined();
    } finally {
      propagation.disable();
    }
  });
});
