/**
 * `memoryCheckpointer()`: checkpoints in this process's memory. A run survives an abort, a turn limit
 * or a pause for approval (resume it in the same process), not a crash. Each save keeps the state as
 * JSON text (several times faster to make than a structured clone of the same trace), so neither the
 * run nor a caller holding a loaded state can change what is stored.
 */
import { CheckpointError, type Checkpointer } from "../agents/checkpointer.js";
import type { RunState } from "../agents/run-state.js";

export function memoryCheckpointer(): Checkpointer {
  const runs = new Map<string, { text: string; revision: number }>();
  const leases = new Map<string, { owner: string; expiresAt: number }>();
  return {
    async load(runId) {
      const stored = runs.get(runId);
      return stored === undefined ? undefined : { state: JSON.parse(stored.text) as RunState, revision: stored.revision };
    },
    async save(runId, state: RunState, revision) {
      const current = runs.get(runId)?.revision ?? 0;
      if (current !== revision) {
        throw new CheckpointError(`Run ${runId} was saved by another writer (revision ${current}, expected ${revision})`, { runId, reason: "conflict" });
      }
      runs.set(runId, { text: JSON.stringify(state), revision: revision + 1 });
      return revision + 1;
    },
    async lease(runId, owner, ttlMs) {
      const now = Date.now();
      const held = leases.get(runId);
      if (held !== undefined && held.owner !== owner && held.expiresAt > now) return false;
      leases.set(runId, { owner, expiresAt: now + ttlMs });
      return true;
    },
    async release(runId, owner) {
      if (leases.get(runId)?.owner === owner) leases.delete(runId);
    },
    async list() {
      return [...runs.keys()];
    },
    async delete(runId) {
      runs.delete(runId);
      leases.delete(runId);
    },
  };
}
