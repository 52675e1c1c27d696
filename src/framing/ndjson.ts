/**
 * Newline-delimited JSON, the stdio framing: one JSON value per line.
 *
 * Each chunk is decoded to text once (StringDecoder carries a UTF-8 character cut across two chunks
 * over to the next), then split on "\n": cheaper than a Buffer view per line. CRLF and blank lines are
 * tolerated. A line longer than `maxFrameBytes` is dropped with an error (an `OversizeFrameError`, as
 * soon as the line passes the limit: its rest is never held), and so is a line that is not JSON; either
 * way the decoder resynchronises at the next newline. When a dropped line ends and its first and last
 * bytes show it was the response to a request, `onSkipped` names that request, so it can fail at once.
 * Byte sizes are computed exactly only for lines long enough to be near the limit (a UTF-8 character is
 * at most 3 bytes per UTF-16 unit).
 */
import { StringDecoder } from "node:string_decoder";
import type { JsonRpcId } from "../jsonrpc/messages.js";
import { FramingError, sampleOf } from "./errors.js";
import { DEFAULT_MAX_MESSAGE_BYTES, OversizeFrameError, SNIFF_CHARS, responseIdOf } from "./oversize.js";

/** The stdio frame limit is the one message limit of every transport. */
export const DEFAULT_MAX_FRAME_BYTES = DEFAULT_MAX_MESSAGE_BYTES;

export interface NdjsonDecoderOptions {
  maxFrameBytes?: number;
  onValue: (value: unknown) => void;
  onError: (error: FramingError) => void;
  /** A dropped oversize line ended, and it was the response to request `id`. */
  onSkipped?: (id: JsonRpcId, error: OversizeFrameError) => void;
}

export class NdjsonDecoder {
  private readonly maxFrameBytes: number;
  /** Lines shorter than this many UTF-16 units cannot exceed the byte limit. */
  private readonly safeChars: number;
  private readonly onValue: (value: unknown) => void;
  private readonly onError: (error: FramingError) => void;
  private readonly onSkipped: ((id: JsonRpcId, error: OversizeFrameError) => void) | undefined;
  private text = new StringDecoder("utf8");
  /** The current, unfinished line. */
  private partial = "";
  /** UTF-8 bytes of `partial`, kept once it is long enough to matter; -1 before. */
  private partialBytes = -1;
  /** True while skipping the rest of an oversize line. */
  private discarding = false;
  /** The skipped line's first characters, its last ones so far, and the error reported for it. */
  private skipped: { head: string; tail: string; error: OversizeFrameError } | undefined;

  constructor(options: NdjsonDecoderOptions) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.safeChars = Math.floor(this.maxFrameBytes / 3);
    this.onValue = options.onValue;
    this.onError = options.onError;
    this.onSkipped = options.onSkipped;
  }

  push(chunk: Buffer | Uint8Array | string): void {
    const text = typeof chunk === "string" ? chunk : this.text.write(chunk);
    let start = 0;
    let newline = text.indexOf("\n");
    while (newline !== -1) {
      const piece = text.slice(start, newline);
      if (this.discarding) {
        this.discarding = false;
        this.endSkipped(piece);
      } else if (this.partial !== "") {
        const line = this.partial + piece;
        this.partial = "";
        this.partialBytes = -1;
        this.finishLine(line);
      } else {
        this.finishLine(piece);
      }
      start = newline + 1;
      newline = text.indexOf("\n", start);
    }
    if (start < text.length) {
      if (this.discarding) {
        this.keepTail(start === 0 ? text : text.slice(start));
        return;
      }
      const rest = start === 0 ? text : text.slice(start);
      this.partial += rest;
      if (this.partial.length <= this.safeChars) return;
      // Counted per chunk once near the limit: re-measuring the whole line for every chunk of a long one
      // made a 16 MiB line cost seconds.
      this.partialBytes = this.partialBytes < 0 ? Buffer.byteLength(this.partial) : this.partialBytes + Buffer.byteLength(rest);
      if (this.partialBytes > this.maxFrameBytes) {
        this.reportOversize(this.partial);
        this.partial = "";
        this.partialBytes = -1;
        this.discarding = true;
      }
    }
  }

  /** Bytes held for an unfinished line (0 when the input ended on a frame boundary). */
  get bufferedBytes(): number {
    return Buffer.byteLength(this.partial);
  }

  /** Forget any partial line, e.g. when the stream is replaced. */
  reset(): void {
    this.text = new StringDecoder("utf8");
    this.partial = "";
    this.partialBytes = -1;
    this.discarding = false;
    this.skipped = undefined;
  }

  private tooBig(text: string): boolean {
    return text.length > this.safeChars && Buffer.byteLength(text) > this.maxFrameBytes;
  }

  private finishLine(line: string): void {
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    if (line.length === 0) return;
    if (this.tooBig(line)) {
      this.reportOversize(line);
      this.endSkipped(line);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (line.trim() === "") return;
      this.onError(new FramingError(`Invalid JSON line: ${(error as Error).message}`, sampleOf(line)));
      return;
    }
    this.onValue(value);
  }

  private reportOversize(head: string): void {
    const error = new OversizeFrameError(Buffer.byteLength(head), this.maxFrameBytes, sampleOf(head.slice(0, 200)));
    this.skipped = { head: head.slice(0, SNIFF_CHARS), tail: head.slice(-SNIFF_CHARS), error };
    this.onError(error);
  }

  private keepTail(text: string): void {
    if (this.skipped === undefined) return;
    this.skipped.tail = text.length >= SNIFF_CHARS ? text.slice(-SNIFF_CHARS) : (this.skipped.tail + text).slice(-SNIFF_CHARS);
  }

  /** The skipped line ended with `last`: tell which request it answered, if it says so. */
  private endSkipped(last: string): void {
    this.keepTail(last);
    const skipped = this.skipped;
    this.skipped = undefined;
    if (skipped === undefined || this.onSkipped === undefined) return;
    const id = responseIdOf(skipped.head, skipped.tail);
    if (id !== undefined) this.onSkipped(id, skipped.error);
  }
}

/** One message as one line. JSON.stringify escapes newlines inside strings, so the line has none. */
export function encodeNdjson(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
