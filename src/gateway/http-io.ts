/**
 * The node:http plumbing of the gateway's endpoint: reading a bounded body, checking the headers the
 * Streamable HTTP transport requires, and writing JSON or server-sent events back.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ErrorCode } from "../jsonrpc/codes.js";
import type { JsonRpcMessage } from "../jsonrpc/messages.js";
import { isBehind, writeOrCut } from "../util/event-stream.js";
import { errorResponse } from "./wire-error.js";

const NO_STORE = { "cache-control": "no-store" } as const;

/** The body, or undefined when it passed `limit` bytes (the caller answers 413). */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(undefined);
  // Read as it flows, even a body that came in the same read as its headers: node:http hands it to
  // the stream only after the request event's microtasks have run (so a read() a microtask later
  // finds nothing, and waiting longer is latency).
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.off("data", onData);
        request.resume(); // drained, not kept
        resolve(undefined);
      } else chunks.push(chunk);
    };
    request.on("data", onData);
    request.once("end", () => {
      if (size <= limit) resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
    request.once("error", reject);
  });
}

/** Whether an Accept header lists `type` (or a wildcard that covers it). */
export function accepts(header: string | undefined, type: string): boolean {
  if (header === undefined) return false;
  return header.includes(type) || header.includes("*/*") || header.includes(`${type.split("/", 1)[0]}/*`);
}

export function isJsonContent(header: string | undefined): boolean {
  return header !== undefined && header.split(";", 1)[0]!.trim().toLowerCase() === "application/json";
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = JSON.stringify(body);
  // Headers and body leave in one write: end(text) before anything is flushed.
  if (headers === undefined)
    response.writeHead(status, ["cache-control", "no-store", "content-type", "application/json", "content-length", String(Buffer.byteLength(text))]);
  else response.writeHead(status, { ...NO_STORE, "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** An HTTP failure with a JSON-RPC error body, as the SDK's clients expect to read it. */
export function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  code: number = ErrorCode.ServerError,
  headers: Record<string, string> = {},
): void {
  sendJson(response, status, errorResponse(null, code, message), headers);
}

export function openEventStream(response: ServerResponse, headers: Record<string, string> = {}): void {
  response.writeHead(200, { ...NO_STORE, "content-type": "text/event-stream", connection: "keep-alive", ...headers });
  response.flushHeaders();
}

export function eventFrame(message: JsonRpcMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

export function writeEvent(response: ServerResponse, message: JsonRpcMessage): void {
  response.write(eventFrame(message));
}

/** Writes `message` on a stream of notifications (a 2026 listen), closing it if its client is more than `maxUnread` bytes behind. */
export function writeEventOrCut(response: ServerResponse, message: JsonRpcMessage, maxUnread: number): boolean {
  return writeOrCut(response, eventFrame(message), maxUnread);
}

/**
 * A POST's reply: one JSON body, unless a message about the request (progress, a log, a server's
 * request it caused) comes first; then an event stream, which the reply ends. What comes after the
 * response ended (a call that outlived its request, such as an input round) is dropped. So are
 * notifications (progress, logs) while the client is more than `maxUnread` bytes behind: the reply and
 * the server's requests still go, so a client that stops reading holds up only its own call.
 */
export class ReplyStream {
  private streaming = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly maxUnread: number,
  ) {}

  /** Sends `message` ahead of the reply. */
  readonly send = (message: JsonRpcMessage): void => {
    if (this.response.writableEnded) return;
    if (!("id" in message) && this.streaming && isBehind(this.response, this.maxUnread)) return;
    this.open();
    writeEvent(this.response, message);
  };

  /** Opens the event stream now (a request that asked for progress). */
  open(): void {
    if (this.streaming) return;
    openEventStream(this.response);
    this.streaming = true;
  }

  /** Ends the response with `reply`: its last event, or its JSON body with `status`. */
  end(reply: JsonRpcMessage, status = 200): void {
    if (!this.streaming) return sendJson(this.response, status, reply);
    writeEvent(this.response, reply);
    this.response.end();
  }
}
