/** One JSON-RPC message per WebSocket text frame. */
import { FramingError, sampleOf } from "./errors.js";

export function encodeWsFrame(message: unknown): string {
  return JSON.stringify(message);
}

/** Decodes one frame; binary frames and text that is not JSON are errors. */
export function decodeWsFrame(data: unknown, isBinary: boolean): { ok: true; value: unknown } | { ok: false; error: FramingError } {
  if (isBinary) return { ok: false, error: new FramingError("Binary WebSocket frame; MCP sends one JSON-RPC message per text frame") };
  const text =
    typeof data === "string"
      ? data
      : Buffer.isBuffer(data)
        ? data.toString("utf8")
        : Array.isArray(data)
          ? Buffer.concat(data as Buffer[]).toString("utf8")
          : String(data);
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: new FramingError(`WebSocket frame is not JSON: ${(error as Error).message}`, sampleOf(text)) };
  }
}

const CLOSE_REASONS: Record<number, string> = {
  1000: "closed normally",
  1001: "the server is going away",
  1002: "protocol error",
  1003: "unsupported data",
  1005: "closed without a status",
  1006: "the connection dropped (no close frame)",
  1007: "invalid frame payload",
  1008: "policy violation",
  1009: "message too big",
  1011: "server error",
  1012: "the server is restarting",
  1013: "try again later",
};

export function describeCloseCode(code: number, reason: string): string {
  const known = CLOSE_REASONS[code] ?? "closed";
  return `${known} (code ${code}${reason ? `, "${reason}"` : ""})`;
}
