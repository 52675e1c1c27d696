/**
 * Newline-delimited JSON, the stdio framing: one JSON value per line.
 *
 * Splits on the byte 0x0A before decoding text. That is safe for UTF-8 (no multi-byte sequence contains
 * 0x0A) and means a character cut across two chunks is reassembled for free. CRLF and blank lines are
 * tolerated. A line longer than `maxFrameBytes` is dropped with an error, and so is a line that is not
 * JSON; either way the decoder resynchronises at the next newline.
 */
import { FramingError, sampleOf } from "./errors.js";

export const DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface NdjsonDecoderOptions {
  maxFrameBytes?: number;
  onValue: (value: unknown) => void;
  onError: (error: FramingError) => void;
}

const LF = 0x0a;
const CR = 0x0d;

export class NdjsonDecoder {
  private readonly maxFrameBytes: number;
  private readonly onValue: (value: unknown) => void;
  private readonly onError: (error: FramingError) => void;
  /** Bytes of the current, unfinished line. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** True while skipping the rest of an oversize line. */
  private discarding = false;

  constructor(options: NdjsonDecoderOptions) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.onValue = options.onValue;
    this.onError = options.onError;
  }

  push(chunk: Buffer | Uint8Array | string): void {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    let newline = bytes.indexOf(LF, start);
    while (newline !== -1) {
      this.finishLine(bytes, start, newline);
      start = newline + 1;
      newline = bytes.indexOf(LF, start);
    }
    if (start < bytes.length) this.keep(bytes.subarray(start));
  }

  /** Bytes held for an unfinished line (0 when the input ended on a frame boundary). */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** Forget any partial line, e.g. when the stream is replaced. */
  reset(): void {
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
  }

  private keep(rest: Buffer): void {
    if (this.discarding) return;
    if (this.pendingBytes + rest.length > this.maxFrameBytes) {
      this.reportOversize(this.pendingBytes + rest.length, this.pending[0] ?? rest);
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      return;
    }
    this.pending.push(rest);
    this.pendingBytes += rest.length;
  }

  private finishLine(bytes: Buffer, start: number, end: number): void {
    if (this.discarding) {
      this.discarding = false;
      return;
    }
    let line: Buffer;
    const size = this.pendingBytes + (end - start);
    if (size > this.maxFrameBytes) {
      this.reportOversize(size, this.pending[0] ?? bytes.subarray(start, end));
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    if (this.pendingBytes > 0) {
      this.pending.push(bytes.subarray(start, end));
      line = Buffer.concat(this.pending, size);
      this.pending = [];
      this.pendingBytes = 0;
    } else {
      line = bytes.subarray(start, end);
    }
    let length = line.length;
    if (length > 0 && line[length - 1] === CR) length--;
    if (length === 0) return;
    const text = line.toString("utf8", 0, length);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (text.trim() === "") return;
      this.onError(new FramingError(`Invalid JSON line: ${(error as Error).message}`, sampleOf(text)));
      return;
    }
    this.onValue(value);
  }

  private reportOversize(size: number, head: Buffer): void {
    this.onError(
      new FramingError(
        `Frame of at least ${size} bytes exceeds the limit of ${this.maxFrameBytes} bytes; skipped to the next line`,
        sampleOf(head.subarray(0, 200).toString("utf8")),
      ),
    );
  }
}

/** One message as one line. JSON.stringify escapes newlines inside strings, so the line has none. */
export function encodeNdjson(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}
