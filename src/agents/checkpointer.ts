/**
 * Where a durable run keeps its state between steps, and across processes. The interface is small on
 * purpose, so a database can back it: one record per run with a revision (a save names the revision it
 * read and fails if another writer moved it on: a compare-and-set), and a lease with an owner and an
 * expiry (at most one process drives a run at a time). On Redis the revision check is one Lua script
 * (or WATCH/MULTI) and the lease is `SET key owner NX PX ttl`, renewed and released by scripts that
 * compare the owner first.
 */
import { McpError } from "../jsonrpc/errors.js";
import type { RunState } from "./run-state.js";

export interface StoredRun {
  state: RunState;
  /** Bumped by every save; 1 after the first. */
  revision: number;
}

export interface SaveOptions {
  /**
   * Whether the save must reach the disk before it resolves (default true). A run passes `false` for
   * a save whose loss in a power cut is safe (a call's result: without it the call counts as sent with
   * its outcome unknown); such a save must still survive a crash of the process, and the next save
   * with `sync` makes it durable too. A store that always persists may ignore it.
   */
  sync?: boolean | undefined;
}

export interface Checkpointer {
  /** The run's last checkpoint, or undefined when it has none. */
  load(runId: string): Promise<StoredRun | undefined>;
  /**
   * Stores `state` when the stored revision is still `revision` (0: the run has no checkpoint yet) and
   * resolves to the new revision; otherwise rejects with a `CheckpointError` (reason `"conflict"`).
   * The state must be copied or serialized before the returned promise settles: the run goes on
   * changing its own objects.
   */
  save(runId: string, state: RunState, revision: number, options?: SaveOptions): Promise<number>;
  /**
   * Takes the run's lease for `ttlMs` for `owner`, or renews it when `owner` holds it already;
   * resolves to false when another owner holds a lease that has not expired.
   */
  lease(runId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up, when `owner` holds it. */
  release(runId: string, owner: string): Promise<void>;
  /** The ids of the runs that have a checkpoint. */
  list(): Promise<string[]>;
  /** Removes the run's checkpoint and lease. */
  delete(runId: string): Promise<void>;
}

/**
 * Why a checkpoint could not be used: no such run, a run that exists already, a corrupted or foreign
 * checkpoint, one written by a newer version, a save that lost a race, a run another process holds, or
 * a decision for a call that is not waiting for one.
 */
export type CheckpointErrorReason = "not_found" | "exists" | "corrupt" | "foreign" | "newer_version" | "conflict" | "leased" | "not_pending" | "io";

export interface CheckpointErrorOptions {
  runId: string;
  reason: CheckpointErrorReason;
  /** The checkpoint's file, for the file checkpointer. */
  file?: string | undefined;
  /** The tool call a decision named (`not_pending`). */
  toolUseId?: string | undefined;
  cause?: unknown;
}

export class CheckpointError extends McpError {
  readonly runId: string;
  readonly reason: CheckpointErrorReason;
  readonly file?: string;
  readonly toolUseId?: string;
  constructor(message: string, options: CheckpointErrorOptions) {
    super(message, { cause: options.cause, retryable: false });
    this.runId = options.runId;
    this.reason = options.reason;
    if (options.file !== undefined) this.file = options.file;
    if (options.toolUseId !== undefined) this.toolUseId = options.toolUseId;
  }
}
