/**
 * What a checkpoint file holds, and how it is read back. The file is a journal: a first line naming
 * the format, then one framed record per save (journal-frame.ts). A record carries the revision it
 * makes, the writer's nonce, and the state as a change from the revision before: how many messages
 * and steps are kept, the ones added (a turn adds two messages), and the rest of the state whole (it
 * is small: status, usage, the turn under way). The first record is a whole state, and so is the one
 * record of a compacted file. Revisions chain: a record applies only on the revision just before its
 * own; one at or below the current revision lost a race (or repeats a compacted one) and is skipped; a
 * gap means a record was lost, which is corruption, never guessed over. A record marked `c` seals the
 * file: its writer is about to replace the file with a compacted copy, so no one appends after it.
 * Files written before the journal (a first line with the revision, then the whole state) are read too.
 */
import { CheckpointError, type CheckpointErrorReason } from "../agents/checkpointer.js";
import type { RunState } from "../agents/run-state.js";
import { isObject } from "../util/guards.js";
import { decodeFrames, encodeFrame } from "./journal-frame.js";

export const FORMAT = "mcp-switchboard/checkpoint";
/** The journal's layout version (the first line's `journal`); the state inside has its own version. */
export const JOURNAL_VERSION = 1;
export const HEAD_LINE = `${JSON.stringify({ format: FORMAT, journal: JOURNAL_VERSION })}\n`;

/** A state as the pieces a record is made of: each message and step as JSON text, and the rest. */
export interface SerializedState {
  messages: string[];
  steps: string[];
  rest: string;
}

export function serializeState(state: RunState): SerializedState {
  const { messages, steps, ...rest } = state;
  return { messages: messages.map((m) => JSON.stringify(m)), steps: steps.map((s) => JSON.stringify(s)), rest: JSON.stringify(rest) };
}

/** The journal as read: the state at its last revision, and what a writer needs to append to it. */
export interface JournalView {
  revision: number;
  state: SerializedState | undefined;
  /** The file's size when read, and where its last whole record ends (less: a cut-short write follows). */
  size: number;
  end: number;
  /** Records since the last whole state, which compaction folds into one. */
  records: number;
  /** The last record seals the file: it is being compacted. */
  sealed: boolean;
  /** Written before the journal (one whole state): rewritten as a journal by the next save. */
  legacy: boolean;
}

const commonPrefix = (a: readonly string[], b: readonly string[]) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};

/** One record, framed: `next` as a change from `base` (undefined: the whole state). */
export function recordFrame(revision: number, nonce: string, next: SerializedState, base: SerializedState | undefined, seal = false): Buffer {
  const m = base === undefined ? 0 : commonPrefix(base.messages, next.messages);
  const s = base === undefined ? 0 : commonPrefix(base.steps, next.steps);
  const payload = `{"r":${revision},"w":"${nonce}","m":${m},"M":[${next.messages.slice(m).join(",")}],"s":${s},"S":[${next.steps.slice(s).join(",")}],"x":${next.rest}${seal ? ',"c":1' : ""}}`;
  return encodeFrame(payload);
}

export interface FileFailure {
  reason: CheckpointErrorReason;
  what: string;
}

/** The journal in `bytes`, or what is wrong with it (a failure names no file: the caller does). */
export function readJournal(bytes: Buffer): JournalView | FileFailure {
  const newline = bytes.indexOf(0x0a);
  const head = parse(bytes.toString("utf8", 0, newline < 0 ? bytes.length : newline));
  if (!isObject(head) || head.format !== FORMAT) return { reason: "foreign", what: "is not an mcp-switchboard checkpoint file" };
  if (typeof head.revision === "number") return readLegacy(bytes, newline, head.revision);
  if (typeof head.journal !== "number") return { reason: "corrupt", what: "has no valid first line" };
  if (head.journal > JOURNAL_VERSION) {
    return { reason: "newer_version", what: `was written by a newer version of mcp-switchboard (journal ${head.journal}; this one reads ${JOURNAL_VERSION})` };
  }
  const frames = decodeFrames(bytes, newline + 1);
  let revision = 0;
  let state: SerializedState | undefined;
  let records = 0;
  let sealed = false;
  for (const frame of frames.records) {
    const record = parse(frame.payload);
    if (!isRecord(record)) return { reason: "corrupt", what: "holds a record that is not a checkpoint record" };
    if (state !== undefined && record.r <= revision) continue;
    if (state === undefined ? record.m !== 0 || record.s !== 0 : record.r !== revision + 1) {
      return { reason: "corrupt", what: `is missing a record before revision ${record.r} (it has revision ${revision})` };
    }
    if (state !== undefined && (record.m > state.messages.length || record.s > state.steps.length)) {
      return { reason: "corrupt", what: `holds a record (revision ${record.r}) that does not fit the one before` };
    }
    state = {
      messages: [...(state?.messages.slice(0, record.m) ?? []), ...record.M.map((m) => JSON.stringify(m))],
      steps: [...(state?.steps.slice(0, record.s) ?? []), ...record.S.map((s) => JSON.stringify(s))],
      rest: JSON.stringify(record.x),
    };
    revision = record.r;
    records = record.m === 0 && record.s === 0 ? 0 : records + 1;
    sealed = record.c === 1;
  }
  if (state === undefined) return { reason: "corrupt", what: "holds no whole record" };
  return { revision, state, size: bytes.length, end: frames.end, records, sealed, legacy: false };
}

function readLegacy(bytes: Buffer, newline: number, revision: number): JournalView | FileFailure {
  const value = newline < 0 ? undefined : parse(bytes.toString("utf8", newline + 1));
  if (!isObject(value) || !Array.isArray(value.messages) || !Array.isArray(value.steps)) {
    return { reason: "corrupt", what: "is corrupted (not the JSON it should hold)" };
  }
  const state = serializeState(value as unknown as RunState);
  return { revision, state, size: bytes.length, end: bytes.length, records: 0, sealed: false, legacy: true };
}

/** The state a view holds, as an object (checked by the caller with checkRunState). */
export function stateOf(state: SerializedState): unknown {
  return JSON.parse(
    `${state.rest.slice(0, -1)}${state.rest.length > 2 ? "," : ""}"messages":[${state.messages.join(",")}],"steps":[${state.steps.join(",")}]}`,
  );
}

export function fileError(runId: string, file: string, failure: FileFailure): CheckpointError {
  return new CheckpointError(`The checkpoint file ${file} of run ${runId} ${failure.what}`, { runId, reason: failure.reason, file });
}

interface JournalRecord {
  r: number;
  w: string;
  m: number;
  M: unknown[];
  s: number;
  S: unknown[];
  x: Record<string, unknown>;
  c?: number;
}

function isRecord(value: unknown): value is JournalRecord {
  return (
    isObject(value) &&
    Number.isInteger(value.r) &&
    (value.r as number) >= 1 &&
    typeof value.w === "string" &&
    Number.isInteger(value.m) &&
    (value.m as number) >= 0 &&
    Array.isArray(value.M) &&
    Number.isInteger(value.s) &&
    (value.s as number) >= 0 &&
    Array.isArray(value.S) &&
    isObject(value.x)
  );
}

export function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The nonce of the first record of revision `revision` in `bytes` (a range a writer appended to), if any. */
export function writerOf(bytes: Buffer, revision: number): string | undefined {
  for (const frame of decodeFrames(bytes).records) {
    const record = parse(frame.payload);
    if (isRecord(record) && record.r === revision) return record.w;
  }
  return undefined;
}
