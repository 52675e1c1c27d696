/**
 * Server-Sent Events as MCP uses them: each `message` event carries one JSON-RPC message in its data;
 * ids make a stream resumable; `retry` says how long to wait before reconnecting; comments are
 * keep-alives. Parsing is eventsource-parser's; this adds bytes-to-text across chunk boundaries and
 * JSON decoding that reports bad data and carries on.
 */
import { StringDecoder } from "node:string_decoder";
import { createParser, type EventSourceMessage, type EventSourceParser } from "eventsource-parser";
import { FramingError, sampleOf } from "./errors.js";

export interface SseEvent {
  id?: string;
  event?: string;
  data: string;
}

export interface SseDecoderOptions {
  onEvent: (event: SseEvent) => void;
  onRetry?: (ms: number) => void;
  onComment?: (text: string) => void;
  onError?: (error: FramingError) => void;
}

export class SseDecoder {
  private readonly parser: EventSourceParser;
  private text = new StringDecoder("utf8");

  constructor(options: SseDecoderOptions) {
    this.parser = createParser({
      onEvent: (event: EventSourceMessage) => options.onEvent(event),
      onRetry: options.onRetry,
      onComment: options.onComment,
      onError: (error) => options.onError?.(new FramingError(`Bad SSE line: ${error.message}`, error.line ?? "")),
    });
  }

  push(chunk: Buffer | string): void {
    this.parser.feed(typeof chunk === "string" ? chunk : this.text.write(chunk));
  }

  /** Forget partial input (the stream was replaced). */
  reset(): void {
    this.parser.reset({ consume: false });
    this.text = new StringDecoder("utf8");
  }
}

/** The JSON in an event's data, or a FramingError that says why not. */
export function parseEventData(event: SseEvent): { ok: true; value: unknown } | { ok: false; error: FramingError } {
  try {
    return { ok: true, value: JSON.parse(event.data) };
  } catch (error) {
    return { ok: false, error: new FramingError(`SSE event${event.id ? ` ${event.id}` : ""} does not hold JSON: ${(error as Error).message}`, sampleOf(event.data)) };
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
