/**
 * The runtime under test. By default the TypeScript source through tsx; with BENCH_DIST=1 the compiled
 * package in dist/ (`npm run build`), which is what npm users run and what `npm run bench` measures.
 * The two differ on the hot path: tsx compiles with esbuild's keepNames, which wraps every named
 * closure in a `__name(fn, "name")` call (an Object.defineProperty) each time it is created; profiled,
 * that was ~1.2 µs of a routed Switchboard call.
 */
import type * as Source from "../../src/index.js";

const runtime = (
  process.env.BENCH_DIST ? await import(new URL("../../dist/index.js", import.meta.url).href) : await import("../../src/index.js")
) as typeof Source;

export const { connect, createClient, memoryPair, Switchboard } = runtime;
export type { MemoryTransport, Target } from "../../src/index.js";
