/**
 * Trace context in `params._meta`, the MCP conventions' "Context propagation": "Instrumentations SHOULD
 * propagate context using the configured OpenTelemetry propagators by injecting it into the MCP request
 * params._meta property bag", with the W3C keys (`traceparent`, `tracestate`, `baggage`) unprefixed
 * (SEP-414). When no propagator is configured (the API's default does nothing), W3C Trace Context is
 * written here, so the server still gets its parent.
 */
import type { Context, TextMapPropagator } from "@opentelemetry/api";
import type { Params } from "../connection/eras/dialect.js";
import type { OtelApi } from "./otel-api.js";

export type Carrier = Record<string, unknown>;

/** The propagator to use: the one given, the global one if it does anything, else W3C Trace Context. */
export function choosePropagator(api: OtelApi, given: TextMapPropagator | undefined): TextMapPropagator<Carrier> {
  if (given !== undefined) return given as TextMapPropagator<Carrier>;
  if (api.propagation.fields().length > 0) return api.propagation;
  return w3cTraceContext(api);
}

/**
 * A copy of `params` whose `_meta` carries the context, or `params` itself when there is none to carry
 * (the caller's object is never changed). The span's context wins over trace keys already in `_meta`.
 */
export function withTraceContext(propagator: TextMapPropagator<Carrier>, context: Context, params: Params | undefined): Params | undefined {
  const injected: Carrier = {};
  propagator.inject(context, injected, SETTER);
  for (const _ in injected) {
    // Object.assign, not spreads: this runs for every message (see outgoing-span.ts).
    const copy: Params = Object.assign({}, params);
    copy._meta = Object.assign({}, params?._meta as Carrier | undefined, injected);
    return copy;
  }
  return params;
}

const SETTER = {
  set(carrier: Carrier, key: string, value: string): void {
    carrier[key] = value;
  },
};

function w3cTraceContext(api: OtelApi): TextMapPropagator<Carrier> {
  return {
    inject(context, carrier) {
      const span = api.trace.getSpanContext(context);
      if (span === undefined || !api.isSpanContextValid(span)) return;
      carrier.traceparent = `00-${span.traceId}-${span.spanId}-${(span.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
      const state = span.traceState?.serialize();
      if (state) carrier.tracestate = state;
    },
    extract: (context) => context,
    fields: () => ["traceparent", "tracestate"],
  };
}
