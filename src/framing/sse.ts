/**
 * Server-Sent Events as MCP uses them: each `message` event carries one JSON-RPC message in its data;
 * ids make a stream resumable; `retry` says how long to wait before reconnecting; comments are
 * keep-alives. Parsing is eventsource-parser's; this adds bytes-to-text across chunk boundaries, JSON
 * decoding that reports bad data and carries on, and the message size limit.
 *
 * The limit: eventsource-parser bounds what it buffers (`maxBufferSize`, in characters; a character is
 * at least one byte, so passing it means passing the byte limit too), and an event it completes within
 * one chunk is measured exactly in bytes. An oversize event is reported as an `OversizeFrameError` and
 * skipped: the parser stops at the limit, this decoder looks for the blank line that ends the event, and
 * parsing resumes after it. Memory stays within the limit whatever the server sends.
 */
import { StringDecoder } from "node:string_decoder";
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { FramingError, sampleOf } from "./errors.js";
import { scanEvents, type ScanSink } from "./sse-scan.js";
import { DEFAULT_MAX_MESSAGE_BYTES, OversizeFrameError } from "./oversize.js";

export interface SseEvent {
  id?: string | undefined;
  event?: string | undefined;
  data: string;
}

export interface SseDecoderOptions {
  onEvent: (event: SseEvent) => void;
  onRetry?: (ms: number) => void;
  onComment?: (text: string) => void;
  /** Bad lines, and oversize events (`OversizeFrameError`, the event skipped). */
  onError?: (error: FramingError) => void;
  /** The largest event, in bytes (default 16 MiB). */
  maxMessageBytes?: number;
}

const LF = 10;
const CR = 13;

export class SseDecoder implements ScanSink {
  /** Made when the scan (sse-scan.ts) first meets text it leaves to the general parser. */
  private parser: EventSourceParser | undefined;
  private readonly limit: number;
  private readonly safeChars: number;
  private readonly options: SseDecoderOptions;
  /** Made for the first chunk that may end inside a character. */
  private text: StringDecoder | undefined;
  /** The last chunk ended on a byte that is not ASCII: `text` may hold part of a character. */
  private held = false;
  /** At an event boundary with nothing buffered: the next text may be scanned. */
  private clean = true;
  /** No text was fed since the start or a reset (the parser strips a BOM from that text only). */
  private first = true;
  /** The parser was not fed since it was made or reset. */
  private parserFresh = true;
  /** Set while skipping the rest of an oversize event: where the scan for its blank line stands. */
  private skipping: { atLineStart: boolean; afterCr: boolean } | undefined;
  private overflowed = false;
  /** The last two characters pushed (UTF-16 codes), to tell where a stream cut stands. */
  private last = 0;
  private beforeLast = 0;

  constructor(options: SseDecoderOptions) {
    this.options = options;
    this.limit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.safeChars = Math.floor(this.limit / 3);
  }

  private general(): EventSourceParser {
    const { options } = this;
    return (this.parser ??= createParser({
      onEvent: (event: EventSourceMessage) => this.event(event.id, event.event, event.data),
      onRetry: options.onRetry,
      onComment: options.onComment,
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") {
          this.overflowed = true;
          return;
        }
        options.onError?.(new FramingError(`Bad SSE line: ${error.message}`, sampleOf(error.line ?? "")));
      },
      maxBufferSize: this.limit,
    }));
  }

  /** A whole event, from the scan or the parser. */
  event(id: string | undefined, event: string | undefined, data: string): void {
    // An event completed inside one chunk can exceed the buffer bound by up to that chunk.
    if (data.length > this.safeChars && Buffer.byteLength(data) > this.limit) {
      this.options.onError?.(new OversizeFrameError(Buffer.byteLength(data), this.limit, sampleOf(data)));
      return;
    }
    this.options.onEvent({ id, event, data });
  }

  comment(text: string): void {
    this.options.onComment?.(text);
  }

  push(chunk: Buffer | string): void {
    let text = typeof chunk === "string" ? chunk : this.decode(chunk);
    let first = this.first;
    /** What the last two characters are taken from: all of this chunk's text the parser saw, or would have. */
    let seen = text;
    if (this.skipping !== undefined) {
      const end = findEventEnd(text, this.skipping);
      if (end < 0) return;
      this.skipping = undefined;
      this.parser!.reset();
      this.parserFresh = first = true;
      seen = text = text.slice(end);
    } else if (this.clean) {
      const from = scanEvents(text, this);
      if (from > 0) first = false;
      this.first = false;
      if (from === text.length) return this.track(text);
      text = text.slice(from);
    }
    const parser = this.general();
    // The parser strips a BOM from the first text it is fed: text the scan read came before this.
    if (this.parserFresh && !first) parser.feed("");
    this.parserFresh = false;
    this.first = false;
    parser.feed(text);
    this.track(seen);
    this.clean = !this.overflowed && this.last === LF && this.beforeLast === LF;
    if (this.overflowed) {
      this.overflowed = false;
      this.options.onError?.(new OversizeFrameError(this.limit + 1, this.limit, ""));
      const last = this.last;
      // A final CR right after a line end is the event's blank line already (the parser holds a final
      // CR back in case an LF follows): nothing left to skip.
      if (last === CR && (this.beforeLast === CR || this.beforeLast === LF)) {
        parser.reset();
        this.parserFresh = this.first = true;
      } else this.skipping = { atLineStart: last === LF || last === CR, afterCr: last === CR };
    }
  }

  /** Bytes to text; a chunk that ends in ASCII, with nothing held from the last, needs no StringDecoder. */
  private decode(chunk: Buffer): string {
    if (!this.held && chunk.length > 0 && chunk[chunk.length - 1]! < 0x80) return chunk.toString("utf8");
    const text = (this.text ??= new StringDecoder("utf8")).write(chunk);
    if (chunk.length > 0) this.held = chunk[chunk.length - 1]! >= 0x80;
    return text;
  }

  private track(text: string): void {
    if (text.length > 1) this.beforeLast = text.charCodeAt(text.length - 2);
    else if (text.length === 1) this.beforeLast = this.last;
    if (text.length > 0) this.last = text.charCodeAt(text.length - 1);
  }

  /** True while the rest of an oversize event is being skipped. */
  get skippingEvent(): boolean {
    return this.skipping !== undefined;
  }

  /** Forget partial input (the stream was replaced). */
  reset(): void {
    this.parser?.reset({ consume: false });
    this.text = undefined;
    this.held = false;
    this.skipping = undefined;
    this.overflowed = false;
    this.last = this.beforeLast = 0;
    this.clean = this.first = this.parserFresh = true;
  }
}

/**
 * The index just after the blank line that ends the current event, or -1 when `text` has none (the
 * scan state carries over to the next chunk). Lines end in LF, CR or CRLF (the SSE rules).
 */
function findEventEnd(text: string, state: { atLineStart: boolean; afterCr: boolean }): number {
  let i = 0;
  let nextLf = -2;
  let nextCr = -2;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === LF) {
      if (state.afterCr)
        state.afterCr = false; // the LF of a CRLF: that line already ended
      else if (state.atLineStart) return i + 1;
      else state.atLineStart = true;
      i++;
    } else if (c === CR) {
      if (state.atLineStart) return text.charCodeAt(i + 1) === LF ? i + 2 : i + 1;
      state.atLineStart = true;
      state.afterCr = true;
      i++;
    } else {
      state.atLineStart = false;
      state.afterCr = false;
      // Inside a line: jump to its end (the skipped event may be megabytes long).
      if (nextLf !== -1 && nextLf < i) nextLf = text.indexOf("\n", i);
      if (nextCr !== -1 && nextCr < i) nextCr = text.indexOf("\r", i);
      const next = Math.min(nextLf === -1 ? text.length : nextLf, nextCr === -1 ? text.length : nextCr);
      i = next;
    }
  }
  return -1;
}

/** The JSON in an event's data, or a FramingError that says why not. */
export function parseEventData(event: SseEvent): { ok: true; value: unknown } | { ok: false; error: FramingError } {
  try {
    return { ok: true, value: JSON.parse(event.data) };
  } catch (error) {
    return {
      ok: false,
      error: new FramingError(`SSE event${event.id ? ` ${sampleOf(event.id)}` : ""} does not hold JSON: ${(error as Error).message}`, sampleOf(event.data)),
    };
  }
}

/** Encodes one event (used by tests and fixtures). */
export function encodeSseEvent(event: SseEvent & { retry?: number }): string {
  let out = "";
  if (event.id !== undefined) out += `id: ${event.id}\n`;
  if (event.event !== undefined) out += `event: ${event.event}\n`;
  if (event.retry !== undefined) out += `retry: ${event.retry}\n`;
  for (const line of event.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}
