/**
 * The performance targets (docs/guide/benchmarks.md, "Benchmarks"), in one table: each benchmark reports the readings it measures (by target id)
 * into its results file, and `npm run bench` ends by printing every target with its reading and whether
 * it is met. A target without a threshold is a reading worth printing beside the others (many servers).
 */
export interface Target {
  id: string;
  /** What is measured, as the table prints it. */
  what: string;
  /** The benchmark that measures it (bench/<bench>.ts). */
  bench: string;
  unit: "x" | "bytes" | "KiB" | "MB" | "ms" | "calls";
  atLeast?: number;
  atMost?: number;
}

export const TARGETS: readonly Target[] = [
  { id: "switchboard-c1", what: "Switchboard ÷ bare client, stdio raw responder, c1 (req/s)", bench: "stdio-throughput", unit: "x", atLeast: 0.9 },
  { id: "switchboard-c64", what: "Switchboard ÷ bare client, stdio raw responder, c64 (req/s)", bench: "stdio-throughput", unit: "x", atLeast: 0.9 },
  { id: "http-json-c1", what: "Streamable HTTP ÷ raw undici loop, JSON replies, c1", bench: "http-throughput", unit: "x", atLeast: 0.95 },
  { id: "http-json-c64", what: "Streamable HTTP ÷ raw undici loop, JSON replies, c64", bench: "http-throughput", unit: "x", atLeast: 0.95 },
  { id: "http-sse-c1", what: "Streamable HTTP ÷ raw undici loop, SSE replies (SDK server), c1", bench: "http-throughput", unit: "x", atLeast: 0.9 },
  { id: "http-sse-c64", what: "Streamable HTTP ÷ raw undici loop, SSE replies (SDK server), c64", bench: "http-throughput", unit: "x", atLeast: 0.9 },
  { id: "pending-bytes", what: "heap per pending request", bench: "pending-memory", unit: "bytes", atMost: 400 },
  { id: "connection-kib-1000", what: "heap per supervised connection at 1,000 servers", bench: "switchboard-scale", unit: "KiB", atMost: 12 },
  { id: "start-10000-ms", what: "start 10,000 supervised connections (memory pairs)", bench: "switchboard-scale", unit: "ms", atMost: 2000 },
  { id: "list-10000-ms", what: "listTools over 10,000 supervised connections", bench: "switchboard-scale", unit: "ms", atMost: 1000 },
  { id: "many-servers-vs-sdk", what: "100 stdio servers, c64: one Switchboard ÷ one SDK Client per server (req/s)", bench: "many-servers", unit: "x" },
  { id: "codemode-run-ms", what: "code mode: CPU per run (engine, prelude, strip, bridge setup)", bench: "codemode", unit: "ms", atMost: 5 },
  { id: "codemode-call-ms", what: "code mode: CPU per call from code over a direct board.callTool", bench: "codemode", unit: "ms", atMost: 0.2 },
  { id: "codemode-tokens", what: "code mode: tokens sent ÷ plain tool calling (20 lookups, one per turn)", bench: "codemode", unit: "x", atMost: 0.2 },
  {
    id: "codemode-loop-p99-ms",
    what: "code mode: host event-loop delay p99 during a busy loop, a bomb, 32 runs at once (worst)",
    bench: "codemode",
    unit: "ms",
    atMost: 50,
  },
  { id: "codemode-bomb-rss-mb", what: "code mode: host RSS growth at peak during a 32 MiB array bomb", bench: "codemode", unit: "MB", atMost: 150 },
  { id: "codemode-bomb-rss-after-mb", what: "code mode: host RSS after the bomb over before", bench: "codemode", unit: "MB", atMost: 80 },
  {
    id: "codemode-deferred-token-ratio",
    what: "code mode + deferred: total tokens ÷ eager, 20 lookups on 281 tools",
    bench: "codemode",
    unit: "x",
    atMost: 0.1,
  },
  { id: "codemode-deferred-model-calls", what: "code mode + deferred: model calls for the 20 lookups", bench: "codemode", unit: "calls", atMost: 3 },
  { id: "catalog-tokens-anthropic", what: "catalog, turn-1 tool tokens deferred ÷ eager, Anthropic", bench: "catalog", unit: "x", atMost: 0.1 },
  { id: "catalog-tokens-responses", what: "catalog, turn-1 tool tokens deferred ÷ eager, OpenAI Responses", bench: "catalog", unit: "x", atMost: 0.1 },
  { id: "catalog-tokens-neutral", what: "catalog, turn-1 tool tokens deferred ÷ eager, provider-neutral", bench: "catalog", unit: "x", atMost: 0.1 },
  { id: "catalog-lazy-100-ms", what: "start a board of 100 lazy stdio servers (catalog snapshot)", bench: "catalog", unit: "ms", atMost: 100 },
  { id: "checkpoint-file-step-ms", what: "durable run, file checkpointer: added per step, 50-message trace", bench: "durable", unit: "ms", atMost: 2 },
  { id: "observer-page-c64", what: "observer on with a page open ÷ off, stdio raw responder, c64 (req/s)", bench: "observe", unit: "x", atLeast: 0.95 },
  { id: "gateway-vs-direct-c64", what: "gateway ÷ direct, instant tool on the raw HTTP responder, c64 (req/s)", bench: "gateway", unit: "x", atLeast: 0.5 },
  {
    id: "gateway-vs-sdk-c64",
    what: "gateway ÷ an SDK-only proxy, instant tool on the raw HTTP responder, c64 (req/s)",
    bench: "gateway",
    unit: "x",
    atLeast: 2,
  },
  {
    id: "gateway-vs-direct-c64-sdk-upstream",
    what: "gateway ÷ direct, instant tool on an SDK McpServer upstream, c64 (req/s)",
    bench: "gateway",
    unit: "x",
    atLeast: 0.5,
  },
  {
    id: "gateway-vs-sdk-c64-sdk-upstream",
    what: "gateway ÷ an SDK-only proxy, instant tool on an SDK McpServer upstream, c64 (req/s)",
    bench: "gateway",
    unit: "x",
    atLeast: 2,
  },
  { id: "gateway-added-p50-ms", what: "gateway: p50 latency added at c1", bench: "gateway", unit: "ms" },
  { id: "gateway-session-bytes", what: "gateway: heap per idle 2025-era session", bench: "gateway", unit: "bytes" },
  { id: "no-regression", what: "every benchmark ratio ÷ its baseline, the lowest (no regression: ≥ 0.9)", bench: "run-all", unit: "x", atLeast: 0.9 },
];

export type Readings = Record<string, number>;

/** true: met, false: not met, undefined: no threshold (a reading only). */
export function isMet(target: Target, value: number): boolean | undefined {
  if (target.atLeast === undefined && target.atMost === undefined) return undefined;
  return (target.atLeast === undefined || value >= target.atLeast) && (target.atMost === undefined || value <= target.atMost);
}

export function formatReading(target: Target, value: number): string {
  switch (target.unit) {
    case "x":
      return `${value.toFixed(2)}x`;
    case "bytes":
      return `${Math.round(value).toLocaleString("en-US")} B`;
    case "KiB":
      return `${value.toFixed(1)} KiB`;
    case "MB":
      return `${value.toFixed(1)} MB`;
    case "calls":
      return `${value} calls`;
    case "ms":
      return value < 10 ? `${value.toFixed(2)} ms` : `${Math.round(value).toLocaleString("en-US")} ms`;
  }
}

export function thresholdText(target: Target): string {
  if (target.atLeast !== undefined) return `≥ ${formatReading(target, target.atLeast)}`;
  if (target.atMost !== undefined) return `≤ ${formatReading(target, target.atMost)}`;
  return "—";
}
