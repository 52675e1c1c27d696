/**
 * Newline-delimited JSON, the stdio framing: one JSON value per line.
 *
 * Each chunk is decoded to text once (StringDecoder carries a UTF-8 character cut across two chunks
 * over to the next), then split on "\n": cheaper than a Buffer view per line. CRLF and blank lines are
 * tolerated. A line longer than `maxFrameBytes` is dropped with an error, and so is a line that is not
 * JSON; either way the decoder resynchronises at the next newline. Byte sizes are computed exactly only
 * for lines long enough to be near the limit (a UTF-8 character is at most 3 bytes per UTF-16 unit).
 */
import { StringDecoder } from "node:string_decoder";
import { FramingError, sampleOf } from "./errors.js";

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface NdjsonDecoderOptions {
  maxFrameBytes?: number;
  onValue: (value: unknown) => void;
  onError: (error: FramingError) => void;
}

export class NdjsonDecoder {
  private readonly maxFrameBytes: number;
  /** Lines shorter than this many UTF-16 units cannot exceed the byte limit. */
  private readonly safeChars: number;
  private readonly onValue: (value: unknown) => void;
  private readonly onError: (error: FramingError) => void;
  private text = new StringDecoder("utf8");
  /** The current, unfinished line. */
  private partial = "";
  /** True while skipping the rest of an oversize line. */
  private discarding = false;

  constructor(options: NdjsonDecoderOptions) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.safeChars = Math.floor(this.maxFrameBytes / 3);
    this.onValue = options.onValue;
    this.onError = options.onError;
  }

  push(chunk: Buffer | Uint8Array | string): void {
    const text = typeof chunk === "string" ? chunk : this.text.write(chunk as Buffer);
    let start = 0;
    let newline = text.indexOf("\n");
    while (newline !== -1) {
      const piece = text.slice(start, newline);
      if (this.discarding) {
        this.discarding = false;
      } else if (this.partial !== "") {
        const line = this.partial + piece;
        this.partial = "";
        this.finishLine(line);
      } else {
        this.finishLine(piece);
      }
      start = newline + 1;
      newline = text.indexOf("\n", start);
    }
    if (start < text.length && !this.discarding) {
      this.partial += start === 0 ? text : text.slice(start);
      if (this.tooBig(this.partial)) {
        this.reportOversize(this.partial);
        this.partial = "";
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
    this.discarding = false;
  }

  private tooBig(text: string): boolean {
    return text.length > this.safeChars && Buffer.byteLength(text) > this.maxFrameBytes;
  }

  private finishLine(line: string): void {
    if (line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
    if (line.length === 0) return;
    if (this.tooBig(line)) {
      this.reportOversize(line);
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
    this.onError(
      new FramingError(
        `Frame of at least ${Buffer.byteLength(head)} bytes exceeds the limit of ${this.maxFrameBytes} bytes; skipped to the next line`,
        sampleOf(head.slice(0, 200)),
      ),
    );
  }
}

/** One message as one line. JSON.stringify escapes newlines inside strings, so the line has none. */
export function encodeNdjson(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
