/**
 * The one reader for Streamable HTTP's event streams, a POST's reply and the standalone GET stream
 * alike: decodes events (bounded by `maxMessageBytes`), drops replays after a resume (a bounded filter
 * of recent event ids), and when a stream ends or breaks before its job is done, re-opens it from its
 * cursor (`Last-Event-ID`) after the server's `retry` (clamped) or the backoff, for a bounded number of
 * attempts without progress.
 */
import type { Readable } from "node:stream";
import type { MessageTooLargeError } from "../jsonrpc/errors.js";
import { FramingError } from "../framing/errors.js";
import { OversizeFrameError } from "../framing/oversize.js";
import { SseDecoder, parseEventData } from "../framing/sse.js";
import { sampleOf } from "../framing/errors.js";
import { backoffDelay, type BackoffPolicy } from "../util/backoff.js";
import { clamp, sleep } from "../util/timers.js";

/** The server's `retry` is honoured within these bounds (ms): a hostile value neither spins nor stalls. */
export const MIN_RETRY_MS = 100;
export const DEFAULT_MAX_RETRY_MS = 60_000;
/** How many recent event ids a stream remembers to drop replays. */
export const RECENT_EVENT_IDS = 1024;
/** Longer event ids are not used as cursors (they would go out as a header on every resume). */
export const MAX_EVENT_ID_CHARS = 1024;
/** What a Last-Event-ID header can carry: visible ASCII and spaces (Node refuses the rest, the server would too). */
const HEADER_SAFE = /^[\x20-\x7e\t]*$/;
/** A stream that stayed open this long (ms) counts as progress even without events (a quiet GET stream). */
const HEALTHY_STREAM_MS = 1000;

/** Where one logical stream stands across its re-openings. */
export class StreamCursor {
  lastEventId: string | undefined;
  retryMs: number | undefined;
  /** Made for the first id: many POST replies carry none, and a cursor is made per request. */
  private recent: Set<string> | undefined;

  /** Records an event id; false when it was seen already (a replay after a resume). */
  accept(id: string): boolean {
    const recent = (this.recent ??= new Set());
    if (recent.has(id)) return false;
    // A Set iterates in insertion order: the first value is the oldest.
    if (recent.size >= RECENT_EVENT_IDS) recent.delete(recent.values().next().value!);
    recent.add(id);
    this.lastEventId = id;
    return true;
  }

  /** For tests: how many ids the filter holds. */
  get remembered(): number {
    return this.recent?.size ?? 0;
  }
}

/** What the reader needs of a response: its body, and whether it came whole (our HttpResponse, or a node:http one). */
export type EventStreamBody = Readable & { readonly complete: boolean };

export interface ResumableReadOptions {
  cursor: StreamCursor;
  maxMessageBytes: number;
  /** Re-openings in a row that brought no event before giving up. */
  maxAttempts: number;
  backoff: BackoffPolicy;
  /** The longest wait the server's `retry` may ask for (ms). */
  maxRetryMs: number;
  /** Whether a break may be resumed at all (the 2026 era has no resumable streams). */
  resumable: boolean;
  /** Whether a stream without event ids may be re-opened (the GET stream), or is lost (a POST's reply). */
  reopenWithoutCursor: boolean;
  /** Whether an oversize event ends the stream (a POST's reply: its request fails) or is skipped. */
  oversizeEndsStream: boolean;
  /** Re-opens the stream from the cursor; undefined when the server no longer offers it. */
  reopen(cursor: StreamCursor): Promise<EventStreamBody | undefined>;
  /** False once the stream's job is done (answered, abandoned, closed): stop without an error. */
  live(): boolean;
  /** A decoded JSON value from a `message` event. */
  deliver(value: unknown): void;
  /** Something recoverable: a bad event, a failed re-open, a resume. */
  warn(error: Error): void;
  /** The error for an oversize event. */
  tooLarge(error: OversizeFrameError): MessageTooLargeError;
  /** Aborts the waits between attempts. */
  signal?: AbortSignal;
}

export type StreamEnd =
  | { kind: "done" }
  /** The server answered a re-open with "no stream" (405). */
  | { kind: "gone" }
  | { kind: "lost"; why: string; cause?: Error | undefined }
  | { kind: "oversize"; error: MessageTooLargeError };

/**
 * Reads `first` and its re-openings until the stream's job is done or it cannot go on. `first` may be
 * a response already read to its end (an `EventRead` fed by json-post.ts's handler).
 */
export async function readResumable(first: EventStreamBody | EventRead, options: ResumableReadOptions): Promise<StreamEnd> {
  const { cursor } = options;
  let read: ReadOutcome | undefined = first instanceof EventRead ? first.outcome : undefined;
  let response: EventStreamBody | undefined = first instanceof EventRead ? undefined : first;
  let attempts = 0;
  let cause: Error | undefined;
  for (;;) {
    if (response !== undefined) read = await readOnce(response, options);
    if (read !== undefined) {
      if (read.oversize) return { kind: "oversize", error: read.oversize };
      if (read.progressed) attempts = 0;
      cause = read.broken;
      read = undefined;
    }
    if (!options.live()) return { kind: "done" };
    if (!options.resumable) return { kind: "lost", why: "this protocol era has no resumable streams", cause };
    if (cursor.lastEventId === undefined && !options.reopenWithoutCursor) {
      return { kind: "lost", why: "the server sent no event ids to resume from", cause };
    }
    if (attempts >= options.maxAttempts) return { kind: "lost", why: `${attempts} attempts to re-open it failed`, cause };
    await sleep(cursor.retryMs ?? backoffDelay(attempts, options.backoff), options.signal);
    if (!options.live()) return { kind: "done" };
    attempts++;
    try {
      response = await options.reopen(cursor);
      if (response === undefined) return { kind: "gone" };
    } catch (error) {
      if (!options.live()) return { kind: "done" }; // abandoned or closed meanwhile: not worth a word
      options.warn(error as Error);
      cause = error as Error;
      response = undefined;
    }
  }
}

export interface ReadOutcome {
  /** Set when the stream broke (rather than ended). */
  broken?: Error;
  /** At least one event arrived, or the stream stayed open a while. */
  progressed: boolean;
  oversize?: MessageTooLargeError;
}

/** What decoding every response of a transport shares. */
export type EventSettings = Pick<ResumableReadOptions, "maxMessageBytes" | "maxRetryMs" | "warn" | "tooLarge">;

/**
 * The events of one response, decoded as its chunks come: from a stream (readOnce), or straight from
 * undici's handler (json-post.ts, a POST's SSE reply, with no stream in between). `stop` drops the
 * response (an oversize event that ends it).
 */
export class EventRead {
  readonly outcome: ReadOutcome = { progressed: false };
  private readonly decoder: SseDecoder;
  private readonly opened = performance.now();

  /** Where the stream stands (the reader goes on from it when the response ends before its job is done). */
  readonly cursor: StreamCursor;

  /** `oversizeEndsStream`: an event over the limit ends the stream (`stop`), or is skipped with a warning. */
  constructor(options: EventSettings, cursor: StreamCursor, oversizeEndsStream: boolean, deliver: (value: unknown) => void, stop: () => void) {
    this.cursor = cursor;
    const outcome = this.outcome;
    this.decoder = new SseDecoder({
      maxMessageBytes: options.maxMessageBytes,
      onEvent: (event) => {
        outcome.progressed = true;
        if (event.id !== undefined && !acceptId(cursor, event.id, options)) return;
        if (event.event !== undefined && event.event !== "message") return;
        if (event.data === "") return; // a priming event: an id to resume from, no message
        const parsed = parseEventData(event);
        if (parsed.ok) deliver(parsed.value);
        else options.warn(parsed.error);
      },
      onRetry: (ms) => {
        cursor.retryMs = clamp(ms, MIN_RETRY_MS, options.maxRetryMs, options.maxRetryMs);
      },
      onError: (error) => {
        if (!(error instanceof OversizeFrameError)) return options.warn(error);
        const failure = options.tooLarge(error);
        if (!oversizeEndsStream) return options.warn(failure);
        outcome.oversize ??= failure;
        stop();
      },
    });
  }

  push(chunk: Buffer): void {
    if (this.outcome.oversize === undefined) this.decoder.push(chunk);
  }

  /** The response ended (`broken` says why when it broke off). */
  finish(broken?: Error): ReadOutcome {
    const { outcome } = this;
    if (performance.now() - this.opened >= HEALTHY_STREAM_MS) outcome.progressed = true;
    if (broken !== undefined && outcome.broken === undefined && outcome.oversize === undefined) outcome.broken = broken;
    return outcome;
  }
}

/** Reads one response to its end (or to an oversize event that ends it). */
function readOnce(response: EventStreamBody, options: ResumableReadOptions): Promise<ReadOutcome> {
  const read = new EventRead(
    options,
    options.cursor,
    options.oversizeEndsStream,
    (value) => options.deliver(value),
    () => response.destroy(),
  );
  return new Promise<ReadOutcome>((resolve) => {
    const done = (broken?: Error) => resolve(read.finish(broken));
    response.on("data", (chunk: Buffer) => read.push(chunk));
    response.once("end", () => done());
    response.once("error", (error) => done(error));
    response.once("aborted", () => done(new Error("connection lost")));
    response.once("close", () => done(response.complete ? undefined : new Error("connection closed")));
  });
}

/** The SSE rules for an event id: empty resets the cursor; one seen before is a replay (false). */
function acceptId(cursor: StreamCursor, id: string, options: Pick<ResumableReadOptions, "warn">): boolean {
  if (id === "") {
    cursor.lastEventId = undefined;
    return true;
  }
  if (id.length > MAX_EVENT_ID_CHARS || !HEADER_SAFE.test(id)) {
    const what = id.length > MAX_EVENT_ID_CHARS ? `is longer than ${MAX_EVENT_ID_CHARS}` : "cannot go in a Last-Event-ID header";
    options.warn(new FramingError(`Event id of ${id.length} characters ${what}; not used to resume the stream`, sampleOf(id)));
    return true;
  }
  return cursor.accept(id);
}
