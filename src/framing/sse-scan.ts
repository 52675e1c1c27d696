/**
 * The common case of an event stream, read without the general parser: text that starts at an event
 * boundary, has LF line ends only, and holds `data:`, `event:` and `id:` lines, comments and blank
 * lines (what MCP servers send: a POST's reply is usually one whole event in one chunk). Profiled at
 * concurrency 1 against the SDK's server, making an eventsource-parser and a StringDecoder per reply and
 * feeding it was the largest part of a reply's decoding; this reads such text in one pass and makes
 * nothing but the events.
 *
 * Anything else (a CR, a `retry:` or unknown field, a BOM, a field without a colon) stops the scan at
 * the start of the event it is in: nothing of that event was delivered yet, so the general parser
 * (sse.ts) takes over from there in the same state, at an event boundary, and decides it as before.
 */

/** Where the scanned events go: the same checks and callbacks as the general parser's. */
export interface ScanSink {
  event(id: string | undefined, event: string | undefined, data: string): void;
  comment(text: string): void;
}

const SPACE = 32;
const COLON = 58;

/**
 * Delivers the whole events at the start of `text` to `sink` and returns where the rest begins: the
 * start of the first event it did not finish (`text.length` when it read all of it). What it returns
 * is always an event boundary, so `text.slice(result)` may go to a fresh general parser.
 */
export function scanEvents(text: string, sink: ScanSink): number {
  if (text.indexOf("\r") !== -1) return 0;
  let eventStart = 0;
  let start = 0;
  let id: string | undefined;
  let name: string | undefined;
  let data = "";
  let lines = 0;
  for (let lf = text.indexOf("\n"); lf !== -1; lf = text.indexOf("\n", start)) {
    if (lf === start) {
      if (lines > 0) sink.event(id, name, data);
      id = name = undefined;
      data = "";
      lines = 0;
      start = eventStart = lf + 1;
      continue;
    }
    const first = text.charCodeAt(start);
    if (first === 100 && text.startsWith("data:", start)) {
      const value = text.slice(valueStart(text, start + 5), lf);
      data = lines === 0 ? value : `${data}\n${value}`;
      lines++;
    } else if (first === 101 && text.startsWith("event:", start)) {
      name = text.slice(valueStart(text, start + 6), lf) || undefined;
    } else if (first === 105 && text.startsWith("id:", start)) {
      const value = text.slice(valueStart(text, start + 3), lf);
      // The SSE rules: an id holding NUL is ignored.
      if (!value.includes("\0")) id = value;
    } else if (first === COLON && start === eventStart) {
      // A comment between events (a keep-alive) is delivered at once and moves the boundary past it;
      // one inside an event is left to the general parser with the rest of that event.
      sink.comment(text.slice(text.charCodeAt(start + 1) === SPACE ? start + 2 : start + 1, lf));
      eventStart = lf + 1;
    } else {
      return eventStart;
    }
    start = lf + 1;
  }
  return eventStart;
}

/** After `name:`, one optional space. */
function valueStart(text: string, afterColon: number): number {
  return text.charCodeAt(afterColon) === SPACE ? afterColon + 1 : afterColon;
}
