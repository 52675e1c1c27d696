/** Heap measurement for benchmarks run with --expose-gc: collect until quiet, then read heapUsed. */
const gc = (globalThis as { gc?: () => void }).gc;

export function requireGc(): void {
  if (!gc) throw new Error("Run with node --expose-gc (npm run bench does)");
}

export async function settledHeap(): Promise<number> {
  requireGc();
  for (let i = 0; i < 3; i++) {
    gc!();
    await new Promise((r) => setImmediate(r));
  }
  return process.memoryUsage().heapUsed;
}
