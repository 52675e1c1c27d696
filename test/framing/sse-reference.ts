/**
 * The SSE decoder as it was before the scan (src/framing/sse-scan.ts) was added: every chunk through a
 * StringDecoder and eventsource-parser. Kept as the oracle the property test compares the decoder with.
 */
import { StringDecoder } from "node:string_decoder";
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { FramingError, sampleOf } from "../../src/framing/errors.js";
import { DEFAULT_MAX_MESSAGE_BYTES, OversizeFrameError } from "../../src/framing/oversize.js";
import type { SseDecoderOptions } from "../../src/framing/sse.js";

const LF = 10;
const CR = 13;

export class ReferenceSseDecoder {
  private readonly parser: EventSourceParser;
  private readonly limit: number;
  private readonly onError: ((error: FramingError) => void) | undefined;
  private text = new StringDecoder("utf8");
  /** Set while skipping the rest of an oversize event: where the scan for its blank line stands. */
  private skipping: { atLineStart: boolean; afterCr: boolean } | undefined;
  private overflowed = false;
  /** The last two characters pushed (UTF-16 codes), to tell where a stream cut stands. */
  private last = 0;
  private beforeLast = 0;

  constructor(options: SseDecoderOptions) {
    this.limit = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    this.onError = options.onError;
    const onEvent = options.onEvent;
    const safeChars = Math.floor(this.limit / 3);
    this.parser = createParser({
      onEvent: (event: EventSourceMessage) => {
        // An event completed inside one chunk can exceed the buffer bound by up to that chunk.
        if (event.data.length > safeChars && Buffer.byteLength(event.data) > this.limit) {
          this.onError?.(new OversizeFrameError(Buffer.byteLength(event.data), this.limit, sampleOf(event.data)));
          return;
        }
        onEvent(event);
      },
      onRetry: options.onRetry,
      onComment: options.onComment,
      onError: (error) => {
        if (error.type === "max-buffer-size-exceeded") {
          this.overflowed = true;
          return;
        }
        this.onError?.(new FramingError(`Bad SSE line: ${error.message}`, sampleOf(error.line ?? "")));
      },
      maxBufferSize: this.limit,
    });
  }

  push(chunk: Buffer | string): void {
    let text = typeof chunk === "string" ? chunk : this.text.write(chunk);
    if (this.skipping !== undefined) {
      const end = findEventEnd(text, this.skipping);
      if (end < 0) return;
      this.skipping = undefined;
      this.parser.reset();
      text = text.slice(end);
    }
    this.parser.feed(text);
    if (text.length > 1) this.beforeLast = text.charCodeAt(text.length - 2);
    else if (text.length === 1) this.beforeLast = this.last;
    if (text.length > 0) this.last = text.charCodeAt(text.length - 1);
    if (this.overflowed) {
      this.overflowed = false;
      this.onError?.(new OversizeFrameError(this.limit + 1, this.limit, ""));
      const last = this.last;
      // A final CR right after a line end is the event's blank line already (the parser holds a final
      // CR back in case an LF follows): nothing left to skip.
      if (last === CR && (this.beforeLast === CR || this.beforeLast === LF)) this.parser.reset();
      else this.skipping = { atLineStart: last === LF || last === CR, afterCr: last === CR };
    }
  }

  /** True while the rest of an oversize event is being skipped. */
  get skippingEvent(): boolean {
    return this.skipping !== undefined;
  }

  /** Forget partial input (the stream was replaced). */
  reset(): void {
    this.parser.reset({ consume: false });
    this.text = new StringDecoder("utf8");
    this.skipping = undefined;
    this.overflowed = false;
    this.last = this.beforeLast = 0;
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
