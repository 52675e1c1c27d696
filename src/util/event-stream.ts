/**
 * Backpressure for the server-sent event streams we serve (the gateway's, the observer's). node:http
 * buffers whatever is written to a response the client does not read, without limit, so one client
 * that opens a stream and stops reading would make the process hold everything sent to it.
 */
import type { ServerResponse } from "node:http";

/** Whether the client of `response` has left more than `maxUnread` bytes of it unread (in our buffer and the socket's). */
export function isBehind(response: ServerResponse, maxUnread: number): boolean {
  return response.writableLength > maxUnread;
}

/**
 * Writes `frame`, unless the client is more than `maxUnread` bytes behind: then the stream is closed
 * instead and false returned. A client that reads again reconnects, as it does after any cut stream.
 */
export function writeOrCut(response: ServerResponse, frame: string, maxUnread: number): boolean {
  if (response.destroyed) return false;
  if (isBehind(response, maxUnread)) {
    response.destroy();
    return false;
  }
  response.write(frame);
  return true;
}
