/**
 * A stdio server that prints a banner or logs on stdout and then waits fails its start at the deadline,
 * which alone reads like a slow server. The lines it wrote are the real cause, so the CLI remembers the
 * first line each server wrote that was not JSON-RPC and names it beside the server's failure.
 */
import { FramingError } from "../framing/errors.js";
import type { Switchboard } from "../switchboard/switchboard.js";

const firstNoise = new WeakMap<Switchboard, Map<string, string>>();

/** Starts remembering, per server, the first stdout line that was not JSON-RPC. Call before `start()`. */
export function watchStdoutNoise(board: Switchboard): void {
  const seen = new Map<string, string>();
  firstNoise.set(board, seen);
  board.on("error", ({ server, error }) => {
    if (server !== undefined && error instanceof FramingError && !seen.has(server)) seen.set(server, error.sample);
  });
}

/** The hint for a server that is not up and wrote non-JSON on stdout, or "" when it did not. */
export function stdoutNoiseHint(board: Switchboard, server: string): string {
  const sample = firstNoise.get(board)?.get(server);
  if (sample === undefined) return "";
  return `; it wrote lines on stdout that are not JSON-RPC (the first: ${JSON.stringify(sample)}): a stdio MCP server must write only JSON-RPC messages to stdout and its logs to stderr`;
}
