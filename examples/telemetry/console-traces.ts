/**
 * Traces to the console: a Switchboard over the bundled echo server with telemetry on, one "agent step"
 * span around two tool calls, and every span printed by OpenTelemetry's ConsoleSpanExporter: the
 * `initialize` handshake, then `tools/call echo` and `tools/call add` as children of the step.
 *
 *   npx tsx examples/telemetry/console-traces.ts
 *
 * Needs @opentelemetry/api, @opentelemetry/sdk-trace-base and @opentelemetry/context-async-hooks
 * (an application usually gets them from @opentelemetry/sdk-node).
 */
import { fileURLToPath } from "node:url";
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider, ConsoleSpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { Switchboard } from "../../src/index.js";
import { otelInstrumentation } from "../../src/telemetry/index.js";

// The OpenTelemetry setup an application does once: a context manager (so a parent span survives
// `await`) and a tracer provider that prints each span as it ends.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new ConsoleSpanExporter())] });
trace.setGlobalTracerProvider(provider);

const echoServer = fileURLToPath(new URL("../servers/echo-server.mjs", import.meta.url));
const board = new Switchboard({
  servers: { echo: { command: process.execPath, args: [echoServer] } },
  // Board-wide: every server's client records spans and metrics with the global providers.
  client: { protocol: "legacy", telemetry: otelInstrumentation() },
});
await board.start();

await trace.getTracer("console-traces-example").startActiveSpan("agent step", async (step) => {
  await board.callTool("echo__echo", { text: "hello, telemetry" });
  await board.callTool("echo__add", { a: 2, b: 3 });
  step.end();
});

await board.stop();
await provider.shutdown();
