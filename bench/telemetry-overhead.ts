/**
 * What telemetry costs a Switchboard call, in one run: off (the default) against the code before the
 * telemetry seam existed, and on, with the real OpenTelemetry SDK recording every span (batch
 * processor, discarding exporter) and metric, and with the API alone (no SDK registered: what a library
 * user who never set up OpenTelemetry pays for `telemetry: otelInstrumentation()`).
 *
 * Two servers: an in-process responder over a memory pair (no I/O, so the client's CPU per call is
 * what is measured) and the stdio raw responder (examples/servers/raw-responder.mjs). Rounds are
 * interleaved and medians kept (bench/lib/throughput-matrix.ts); the summary prints the microseconds
 * telemetry adds per call. "Before" is measured only when TELEMETRY_BASE_DIST names the dist/ folder of
 * a build of the merge base (see docs/guide/telemetry.md, "Telemetry"); without it, off is compared with nothing, since
 * off and "no telemetry option" are the same code path.
 */
import { fileURLToPath } from "node:url";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import type * as TelemetrySource from "../src/telemetry/index.js";
import { ECHO_ARGS } from "./lib/echo-clients.js";
import { MEMORY, respond, STDIO } from "./lib/memory-responder.js";
import type { ServerInit } from "../src/index.js";
import { memoryPair, Switchboard } from "./lib/runtime.js";
import { cellName, OURS, round2, runMatrix, type BenchServer, type Caller, type ClientFactory } from "./lib/throughput-matrix.js";

const telemetryModule = (
  process.env.BENCH_DIST ? await import(new URL("../dist/telemetry/index.js", import.meta.url).href) : await import("../src/telemetry/index.js")
) as typeof TelemetrySource;
const base = process.env.TELEMETRY_BASE_DIST;
const before = base
  ? ((await import(new URL(`file://${base.replace(/\/$/, "")}/index.js`).href)) as { Switchboard: typeof Switchboard; memoryPair: typeof memoryPair })
  : undefined;

const BEFORE = "before the seam (merge base)";
const SDK = "on: OpenTelemetry SDK";
const API_ONLY = "on: API only, no SDK";

const discard: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
class NeverCollected extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

/** A Switchboard of one server `s`, over a fresh memory pair or the stdio responder, with these client options. */
function board(
  runtime: { Switchboard: typeof Switchboard; memoryPair: typeof memoryPair },
  telemetry: () => { value?: TelemetrySource.OtelTelemetry; close(): Promise<void> },
): ClientFactory {
  return async (address): Promise<Caller> => {
    const made = telemetry();
    let server: ServerInit;
    if (address === MEMORY) {
      const [client, serverSide] = runtime.memoryPair();
      respond(serverSide);
      server = { transport: () => client };
    } else {
      server = { command: process.execPath, args: [address] };
    }
    const instance = new runtime.Switchboard({ servers: { s: server }, client: { protocol: "legacy", ...(made.value ? { telemetry: made.value } : {}) } });
    await instance.start();
    return {
      call: () => instance.callTool("s__echo", ECHO_ARGS),
      close: async () => {
        await instance.stop();
        await made.close();
      },
    };
  };
}

const off = () => ({ close: async () => {} });
const withSdk = () => {
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(discard)] });
  const meterProvider = new MeterProvider({ readers: [new NeverCollected()] });
  return {
    value: telemetryModule.otelInstrumentation({ tracerProvider, meterProvider }),
    close: async () => {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
};
const apiOnly = () => ({ value: telemetryModule.otelInstrumentation(), close: async () => {} });

const clients: Record<string, ClientFactory> = { [OURS]: board({ Switchboard, memoryPair }, off) };
if (before) clients[BEFORE] = board(before, off);
clients[SDK] = board({ Switchboard, memoryPair }, withSdk);
clients[API_ONLY] = board({ Switchboard, memoryPair }, apiOnly);

const rawResponder = fileURLToPath(new URL("../examples/servers/raw-responder.mjs", import.meta.url));
const results = await runMatrix({
  title: `Telemetry overhead, Switchboard (${OURS} = telemetry off)`,
  bench: "telemetry-overhead",
  servers: {
    [MEMORY]: async (): Promise<BenchServer> => ({ address: MEMORY, stop: async () => {} }),
    [STDIO]: async (): Promise<BenchServer> => ({ address: rawResponder, stop: async () => {} }),
  },
  clients,
  ourOtherForms: [SDK, API_ONLY],
});

const microseconds = (rate: number) => 1e6 / rate;
for (const server of [MEMORY, STDIO]) {
  for (const concurrency of [1, 64]) {
    const cell = results[cellName(server, concurrency)];
    const offRate = cell[OURS].reqPerSec;
    const parts = [SDK, API_ONLY].map(
      (name) => `${name} +${(microseconds(cell[name].reqPerSec) - microseconds(offRate)).toFixed(2)} µs/call (${round2(cell[name].reqPerSec / offRate)}x)`,
    );
    if (before) parts.unshift(`off ÷ before ${round2(offRate / cell[BEFORE].reqPerSec)}x`);
    console.log(`${cellName(server, concurrency)}: ${parts.join("; ")}`);
  }
}
