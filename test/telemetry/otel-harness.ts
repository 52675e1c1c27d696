/**
 * In-memory OpenTelemetry for the telemetry tests: a tracer provider whose ended spans a test reads, a
 * meter provider whose histograms it collects on demand (no export timer), and the AsyncLocalStorage
 * context manager an application would register, so a parent span survives `await`.
 */
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader, type DataPoint, type Histogram, type MetricData } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll } from "vitest";
import { otelInstrumentation, type OtelInstrumentationOptions, type OtelTelemetry } from "../../src/telemetry/index.js";

class CollectingReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export interface Harness {
  telemetry: OtelTelemetry;
  tracerProvider: BasicTracerProvider;
  spans(): ReadableSpan[];
  /** Collects the metrics recorded so far; `histogram()` reads what the last collection saw. */
  collect(): Promise<void>;
  /** Every data point of the histogram `name`. */
  histogram(name: string): DataPoint<Histogram>[];
  /** The bucket boundaries the SDK used for `name` (from its advice). */
  boundaries(name: string): number[];
}

/** Registers the context manager for the file, and a fresh harness per test (from `harness()`). */
export function otelHarness(options: Omit<OtelInstrumentationOptions, "tracerProvider" | "meterProvider"> = {}): () => Promise<Harness> {
  let current: { tracerProvider: BasicTracerProvider; meterProvider: MeterProvider } | undefined;
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(() => {
    context.disable();
  });
  afterEach(async () => {
    await current?.tracerProvider.shutdown();
    await current?.meterProvider.shutdown();
    current = undefined;
  });
  return async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    current = { tracerProvider, meterProvider };
    const telemetry = otelInstrumentation({ ...options, tracerProvider, meterProvider });
    let collected: MetricData[] = [];
    const harness: Harness = {
      telemetry,
      tracerProvider,
      spans: () => exporter.getFinishedSpans(),
      collect: async () => {
        collected = (await reader.collect()).resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics);
      },
      histogram: (name) => (collected.find((metric) => metric.descriptor.name === name)?.dataPoints ?? []) as DataPoint<Histogram>[],
      boundaries: (name) => harness.histogram(name)[0]?.value.buckets.boundaries ?? [],
    };
    return harness;
  };
}
