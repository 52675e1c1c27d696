/**
 * `fleet.checkpointer()`: durable-run checkpoints in the fleet's Redis, so a run killed in one process
 * is resumed by any other process of the fleet. Keys, under the fleet's prefix:
 * - `<prefix>:run:<runId>`: a hash, `rev` (the revision) and `data` (the run state as JSON text, whole:
 *   one HSET per save, and a 50-message trace is a few tens of kB); no TTL, kept until `delete`;
 * - `<prefix>:run-lease:<runId>`: the lease, `SET NX PX` with the owner as its value, expiring after the
 *   ttl the run asks for (renewed by its owner, released only by its owner: scripts in Lua); a lease
 *   whose owner was a process of this host that is gone (kill -9) is taken over at once, by a script
 *   that checks the dead owner still holds it;
 * - `<prefix>:runs`: a sorted set of the run ids with a checkpoint (score: Redis time of the last save),
 *   what `list` reads (one ZRANGE, not a SCAN over the whole keyspace); no TTL.
 * A save is one Lua script: the revision check, the write and the index entry happen atomically.
 * While Redis is away every call fails at once with a `CheckpointError` (reason "io") naming the URL
 * with its password masked: unlike limits, a checkpoint has no local fallback that would survive.
 */
import { hostname } from "node:os";
import { CheckpointError, type Checkpointer, type CheckpointErrorReason } from "../agents/checkpointer.js";
import { checkRunState, isRunId, type RunState } from "../agents/run-state.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { maskSecrets, type FleetClient, type FleetLink } from "./link.js";

/**
 * Longest a checkpoint command may go unanswered (a Redis that accepted the connection and stopped
 * answering: no error, no close). A save that times out may still land later; the run has stopped
 * before sending the calls it named, so a resume sees them as of unknown outcome, never sent twice.
 */
export const CHECKPOINT_TIMEOUT_MS = 10_000;

export function redisCheckpointer(link: FleetLink, timeoutMs = CHECKPOINT_TIMEOUT_MS): Checkpointer {
  const runKey = (runId: string) => {
    if (!isRunId(runId)) throw new ConfigError(`expected a run id, found ${JSON.stringify(runId)}`, { field: "runId" });
    return link.key("run", runId);
  };
  const leaseKey = (runId: string) => link.key("run-lease", runId);
  const indexKey = link.key("runs");

  /** The client once Redis answered, or a CheckpointError naming the (masked) URL. */
  const redis = async <T>(runId: string, action: string, work: (client: FleetClient) => Promise<T>): Promise<T> => {
    if (!link.isSettled) await link.settled;
    const client = link.client;
    if (!link.healthy || client === undefined || client.status !== "ready") {
      throw new CheckpointError(`Cannot ${action} run ${runId || "(all)"}: Redis ${link.shown} is unreachable`, { runId, reason: "io" });
    }
    try {
      // One timer per checkpoint command (a few per step of a run, not per MCP request).
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        return await Promise.race([work(client), timeout]);
      } finally {
        clearTimeout(timer);
      }
    } catch (error) {
      if (error instanceof CheckpointError) throw error;
      link.failed(error);
      const message = maskSecrets((error as Error).message);
      if (/^WRONGTYPE/.test(message)) throw bad(runId, "foreign", `the key ${runKey(runId)} holds something other than a checkpoint`);
      throw new CheckpointError(`Cannot ${action} run ${runId || "(all)"} in Redis ${link.shown}: ${message}`, { runId, reason: "io", cause: error });
    }
  };
  const bad = (runId: string, reason: CheckpointErrorReason, what: string) =>
    new CheckpointError(`The checkpoint of run ${runId} in Redis ${link.shown}: ${what}`, { runId, reason });

  return {
    load(runId) {
      const key = runKey(runId);
      return redis(runId, "load", async (client) => {
        const [rev, data] = await client.hmget(key, "rev", "data");
        if (rev == null && data == null) return undefined;
        const revision = Number(rev);
        if (!Number.isInteger(revision) || revision < 1 || data == null) throw bad(runId, "corrupt", `the key ${key} has no valid revision and data`);
        let state: unknown;
        try {
          state = JSON.parse(data);
        } catch (error) {
          throw new CheckpointError(`The checkpoint of run ${runId} in Redis ${link.shown}: the key ${key} is not JSON`, {
            runId,
            reason: "corrupt",
            cause: error,
          });
        }
        return { state: checkRunState(state, runId, `The checkpoint ${key} in Redis ${link.shown}`), revision };
      });
    },
    save(runId, state: RunState, revision) {
      const key = runKey(runId);
      // Serialized before the first await: the run goes on changing its objects.
      const text = JSON.stringify(state);
      return redis(runId, "save", async (client) => {
        const result = await client.sbSaveRun(key, indexKey, revision, text, runId);
        if (result < 0) {
          const current = -result - 1;
          throw new CheckpointError(`Run ${runId} was saved by another writer (revision ${current} in Redis ${link.shown}, expected ${revision})`, {
            runId,
            reason: "conflict",
          });
        }
        return result;
      });
    },
    lease(runId, owner, ttlMs) {
      runKey(runId);
      return redis(runId, "lease", async (client) => {
        const holder = await client.sbLeaseRun(leaseKey(runId), owner, ttlMs);
        if (holder === 1) return true;
        // Like the file checkpointer: a holder that was a process of this host that is gone (kill -9)
        // frees the run at once instead of after its lease expires.
        return typeof holder === "string" && isDeadHere(holder) && (await client.sbLeaseRun(leaseKey(runId), owner, ttlMs, holder)) === 1;
      });
    },
    release(runId, owner) {
      runKey(runId);
      return redis(runId, "release", async (client) => void (await client.sbRelease(leaseKey(runId), owner)));
    },
    list() {
      return redis("", "list", (client) => client.zrange(indexKey, 0, -1));
    },
    delete(runId) {
      const key = runKey(runId);
      return redis(runId, "delete", async (client) => {
        await client.multi().del(key, leaseKey(runId)).zrem(indexKey, runId).exec();
      });
    },
  };
}

/**
 * Whether a lease owner (`host:pid:random`, as runAgent makes it) names a process of this host that no
 * longer exists. Another host's, or an owner in another form, is never judged dead: its expiry decides.
 */
function isDeadHere(owner: string): boolean {
  const match = /^(.*):(\d+):[^:]*$/.exec(owner);
  if (match === null || match[1] !== hostname()) return false;
  const pid = Number(match[2]);
  if (pid === process.pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
