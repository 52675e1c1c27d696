/**
 * The one size limit every decoder enforces while reading (`maxMessageBytes`), and what a decoder can
 * still say about a message it had to skip: which request it answered, read from its first and last
 * bytes only (a decoder never holds more than the limit).
 */
import type { JsonRpcId } from "../jsonrpc/messages.js";
import { FramingError } from "./errors.js";

/** 16 MiB: the default limit for one message, on every transport. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** How much of a skipped message's start and end a decoder keeps to find its id. */
export const SNIFF_CHARS = 512;

/** A message passed the limit; the decoder has skipped (or is skipping) it and goes on with the next. */
export class OversizeFrameError extends FramingError {
  /** Bytes of the message seen when it passed the limit (it may be longer). */
  readonly bytes: number;
  readonly limit: number;
  constructor(bytes: number, limit: number, sample: string) {
    super(`A message of at least ${bytes} bytes exceeds the limit of ${limit} bytes; skipped`, sample);
    this.name = "OversizeFrameError";
    this.bytes = bytes;
    this.limit = limit;
  }
}

/**
 * The id of the JSON-RPC *response* whose text starts with `head` and ends with `tail`, or undefined
 * when they do not say so unambiguously. A response is told from a request by its first top-level keys
 * (`result`/`error` before any `method`/`params`: server requests have their own id space, and
 * failing a client request because of one would be wrong). The id is read where serialisers put it:
 * among the first keys, or as the last key (`{"result":…,"jsonrpc":"2.0","id":1}`, the SDK's order).
 */
export function responseIdOf(head: string, tail: string): JsonRpcId | undefined {
  const scan = topLevelKeys(head);
  if (!scan.response) return undefined;
  if (scan.id !== undefined) return scan.id;
  const raw = TAIL_ID.exec(tail)?.[1];
  return raw === undefined ? undefined : idValue(raw);
}

/** `,"id":<number or string>}` (optionally followed by `,"jsonrpc":"2.0"`) closing the top-level object. */
const TAIL_ID = /[{,]\s*"id"\s*:\s*(-?\d{1,16}|"(?:[^"\\]|\\.){0,256}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/;

function idValue(text: string): JsonRpcId | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "number" || typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Walks the top level of the object `head` starts, as far as `head` goes: notes whether it is a
 * response and the id when it comes early. Strings and nested values are skipped, never parsed.
 */
function topLevelKeys(head: string): { response: boolean; id?: JsonRpcId } {
  let i = skipSpace(head, 0);
  if (head[i] !== "{") return { response: false };
  i++;
  let response = false;
  let id: JsonRpcId | undefined;
  for (;;) {
    i = skipSpace(head, i);
    if (head[i] !== '"') break;
    const keyEnd = stringEnd(head, i);
    if (keyEnd < 0) break;
    const key = head.slice(i + 1, keyEnd - 1);
    i = skipSpace(head, keyEnd);
    if (head[i] !== ":") break;
    i = skipSpace(head, i + 1);
    if (key === "method" || key === "params") return { response: false };
    if (key === "result" || key === "error") response = true;
    const valueEnd = valueEndOf(head, i);
    if (key === "id" && valueEnd > 0) id = idValue(head.slice(i, valueEnd));
    if (valueEnd < 0) break;
    i = skipSpace(head, valueEnd);
    if (head[i] !== ",") break;
    i++;
  }
  return id === undefined ? { response } : { response, id };
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  return i;
}

/** The index after the string starting at `i` (a quote), or -1 when `text` ends inside it. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === "\\") j++;
    else if (c === '"') return j + 1;
  }
  return -1;
}

/** The index after the value starting at `i`, or -1 when `text` ends inside it. */
function valueEndOf(text: string, i: number): number {
  if (text[i] === '"') return stringEnd(text, i);
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const c = text[j];
    if (c === '"') {
      j = stringEnd(text, j);
      if (j < 0) return -1;
      j--;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      if (depth === 0) return j;
      depth--;
      if (depth === 0) return j + 1;
    } else if (c === "," && depth === 0) return j;
  }
  return -1;
}
