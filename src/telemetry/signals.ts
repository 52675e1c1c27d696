/** What one `otelInstrumentation()` records with, shared by its connections. */
import type { Histogram, TextMapPropagator, Tracer } from "@opentelemetry/api";
import type { OtelApi } from "./otel-api.js";
import type { Carrier } from "./propagation.js";

export interface Signals {
  readonly api: OtelApi;
  readonly tracer: Tracer;
  readonly operationDuration: Histogram;
  readonly sessionDuration: Histogram;
  readonly propagator: TextMapPropagator<Carrier>;
  /** Put resource URIs in span names (`resources/read file:///a`): opt-in, high cardinality. */
  readonly resourceUriInSpanName: boolean;
  /** Record `gen_ai.tool.call.arguments` and `.result`: opt-in, they may hold sensitive data. */
  readonly captureToolContent: boolean;
}
