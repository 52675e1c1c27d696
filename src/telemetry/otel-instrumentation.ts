/**
 * `otelInstrumentation()`: OpenTelemetry for connections (pass it as `telemetry` to `connect()` or in a
 * Switchboard's `client` options) and for an agent loop (`toolExecution`, `modelCall`).
 *
 * Providers default to the global ones of `@opentelemetry/api`. The tracer follows the global provider
 * even when it is registered later (the API's proxy); the meter and the propagator are looked up as each
 * connection is created, so set up the SDK before connecting.
 */
import type { AgentEvents } from "../agents/events.js";
import { agentEventsFor } from "./agent-events.js";
import type { CodeModeEvents } from "../codemode/events.js";
import { codeModeEventsFor } from "./codemode-spans.js";
import type { Histogram, Meter, MeterProvider, Span, TextMapPropagator, Tracer, TracerProvider } from "@opentelemetry/api";
import type { ConnectionObserver, Instrumentation, SessionFacts } from "../connection/instrumentation.js";
import { VERSION } from "../util/version.js";
import { runModelCall, runToolExecution, type ModelCallInfo, type ModelCallRecorder, type ToolExecutionInfo } from "./agent-spans.js";
import { ConnectionTelemetry } from "./connection-telemetry.js";
import { otelApi, type OtelApi } from "./otel-api.js";
import { choosePropagator } from "./propagation.js";
import { MCP_DURATION_BUCKETS, METRIC_MCP_CLIENT_OPERATION_DURATION, METRIC_MCP_CLIENT_SESSION_DURATION } from "./semconv.js";
import type { Signals } from "./signals.js";

export interface OtelInstrumentationOptions {
  /** Default: the global tracer provider. */
  tracerProvider?: TracerProvider | undefined;
  /** Default: the global meter provider. */
  meterProvider?: MeterProvider | undefined;
  /** Writes trace context into `params._meta`. Default: the global propagator, or W3C Trace Context if none is set. */
  propagator?: TextMapPropagator | undefined;
  /** Name resource spans by their URI (`resources/read file:///a`). Off by default: high cardinality. */
  resourceUriInSpanName?: boolean | undefined;
  /** Record tool arguments and results (`gen_ai.tool.call.arguments`/`.result`). Off by default: they may hold sensitive data. */
  captureToolContent?: boolean | undefined;
}

/** The instrumentation scope name of every span and metric this package records. */
export const INSTRUMENTATION_SCOPE = "mcp-switchboard";

/** Throws `ConfigError` when `@opentelemetry/api` is not installed. */
export function otelInstrumentation(options: OtelInstrumentationOptions = {}): OtelTelemetry {
  return new OtelTelemetry(options);
}

interface Instruments {
  meter: Meter;
  operationDuration: Histogram;
  sessionDuration: Histogram;
}

export class OtelTelemetry implements Instrumentation {
  readonly tracer: Tracer;
  private readonly api: OtelApi;
  private instruments: Instruments | undefined;

  constructor(private readonly options: OtelInstrumentationOptions = {}) {
    this.api = otelApi();
    this.tracer = (options.tracerProvider ?? this.api.trace.getTracerProvider()).getTracer(INSTRUMENTATION_SCOPE, VERSION);
  }

  /** The connection seam (src/connection/instrumentation.ts): called by each new connection. */
  observe(session: SessionFacts): ConnectionObserver {
    const { operationDuration, sessionDuration } = this.currentInstruments();
    const signals: Signals = {
      api: this.api,
      tracer: this.tracer,
      operationDuration,
      sessionDuration,
      propagator: choosePropagator(this.api, this.options.propagator),
      resourceUriInSpanName: this.options.resourceUriInSpanName ?? false,
      captureToolContent: this.options.captureToolContent ?? false,
    };
    return new ConnectionTelemetry(signals, session);
  }

  /**
   * Runs `fn` in an `execute_tool {name}` span. The first MCP `tools/call` made inside it adds its MCP
   * attributes to this span instead of opening a CLIENT span. The span's outcome: `fn`'s error, or
   * `tool_error` when `fn` returns a tool result with `isError: true`.
   */
  toolExecution<T>(tool: ToolExecutionInfo, fn: (span: Span) => Promise<T> | T, isError?: (value: T) => boolean): Promise<T> {
    return runToolExecution(this.api, this.tracer, tool, fn, isError);
  }

  /**
   * `runAgent({ events })` for this telemetry: each model call in a `chat {model}` span (usage and the
   * stop reason from the model's answer), each tool execution in an `execute_tool {name}` span that the
   * MCP call inside it enriches. `model` names the provider and model for the inference spans.
   */
  agentEvents(model: ModelCallInfo): AgentEvents {
    return agentEventsFor(this, model);
  }

  /** `codeMode(board, { events })` for this telemetry: a `code.run` span per run, an `execute_tool` span per call under it. */
  codeModeEvents(): CodeModeEvents {
    return codeModeEventsFor(this.api, this.tracer);
  }

  /** Runs `fn` in a `{operation} {model}` CLIENT span; `fn` tells what the model answered through its recorder. */
  modelCall<T>(call: ModelCallInfo, fn: (recorder: ModelCallRecorder) => Promise<T> | T): Promise<T> {
    return runModelCall(this.api, this.tracer, call, fn);
  }

  private currentInstruments(): Instruments {
    const meter = (this.options.meterProvider ?? this.api.metrics.getMeterProvider()).getMeter(INSTRUMENTATION_SCOPE, VERSION);
    if (this.instruments?.meter === meter) return this.instruments;
    // "This metric SHOULD be specified with ExplicitBucketBoundaries of [...]" (both, MCP conventions, Metrics).
    const advice = { explicitBucketBoundaries: [...MCP_DURATION_BUCKETS] };
    this.instruments = {
      meter,
      operationDuration: meter.createHistogram(METRIC_MCP_CLIENT_OPERATION_DURATION, {
        unit: "s",
        description:
          "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
        advice,
      }),
      sessionDuration: meter.createHistogram(METRIC_MCP_CLIENT_SESSION_DURATION, {
        unit: "s",
        description: "The duration of the MCP session as observed on the MCP client.",
        advice,
      }),
    };
    return this.instruments;
  }
}
