/** Opens the Switchboard a command works on: from --config (default ./mcp.json), started and ready. */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError } from "../jsonrpc/errors.js";
import { loadConfig } from "../switchboard/config.js";
import { parseQualified } from "../switchboard/namespacing.js";
import type { SwitchboardConfig } from "../switchboard/config-types.js";
import { withConfigFleet } from "../switchboard/board-fleet.js";
import type { FromConfigOptions } from "../switchboard/board-options.js";
import { setFleetLoader } from "../switchboard/fleet-seam.js";
import { Switchboard, type ServerStatus } from "../switchboard/switchboard.js";
import { stdoutNoiseHint, watchStdoutNoise } from "./stdout-noise.js";

export interface BoardFlags {
  /** --timeout: each call's deadline. */
  timeoutMs?: number | undefined;
  /** --start-timeout: each server's start deadline (spawn or connect, and the handshake). */
  startTimeoutMs?: number | undefined;
  /** Config warnings (keys of other hosts ignored), for stderr. */
  onWarning?: ((message: string) => void) | undefined;
  /**
   * call and bench: the qualified name they work on. Only its server and that server's fallbacks are
   * started (a call from a 10-server config waited for all ten); a name with no configured server's
   * prefix keeps them all, so the error can name the closest tools.
   */
  onlyFor?: string | undefined;
}

export async function openBoard(configPath: string | undefined, options: BoardFlags = {}): Promise<Switchboard> {
  const config = await readBoardConfig(configPath, options);
  if (options.onlyFor !== undefined) keepServerOf(config, options.onlyFor);
  const board = await boardOf(config);
  watchStdoutNoise(board);
  await board.start();
  return board;
}

/**
 * The board of a config, a member of the fleet its "fleet" section names (every command joins it: its
 * limits, breaker and credentials hold for the command line too); the board closes that fleet as it stops.
 */
export async function boardOf(config: SwitchboardConfig, options: FromConfigOptions = {}): Promise<Switchboard> {
  // Imported only for a config with a fleet: the command line loads no Redis client otherwise.
  if (config.fleet !== undefined) setFleetLoader(async (fleet) => (await import("../fleet/index.js")).redisFleet({ url: fleet.redis }, fleet.prefix));
  return new Switchboard(...(await withConfigFleet(Promise.resolve(config), options)));
}

/** The config a command works on, with the same errors for every command (observe shares them with tools). */
export async function readBoardConfig(configPath: string | undefined, options: BoardFlags = {}): Promise<SwitchboardConfig> {
  const path = resolve(configPath ?? "mcp.json");
  if (!existsSync(path)) {
    throw new ConfigError(
      configPath === undefined ? `No mcp.json in ${process.cwd()}: pass --config FILE, or try \`mcp-switchboard demo\`` : `${path} does not exist`,
    );
  }
  const config = await loadConfig(path, options.onWarning !== undefined ? { onWarning: options.onWarning } : {});
  // The command line's word wins over every entry's requestTimeoutMs (which the config always fills
  // in, 60000 by default) and startTimeoutMs. The two stay apart: a short call deadline must not fail
  // a server that takes seconds to start.
  for (const entry of Object.values(config.servers)) {
    if (options.timeoutMs !== undefined) entry.requestTimeoutMs = options.timeoutMs;
    if (options.startTimeoutMs !== undefined) entry.startTimeoutMs = options.startTimeoutMs;
  }
  return config;
}

function keepServerOf(config: SwitchboardConfig, name: string): void {
  const server = parseQualified(name, config.options.separator, new Set(Object.keys(config.servers)))?.server;
  if (server === undefined) return;
  const keep = new Set([server, ...config.servers[server]!.fallbacks]);
  for (const other of Object.keys(config.servers)) if (!keep.has(other)) delete config.servers[other];
}

/** One line per server that is not up, so a command's output says why its tools are missing. */
export function downServers(board: Switchboard): string[] {
  return Object.entries(board.status())
    .filter(([, status]) => status.state !== "up" && status.state !== "disabled")
    .map(([name, status]) => `server "${name}" is ${status.state}${whyNotUp(status)}${stdoutNoiseHint(board, name)}`);
}

/**
 * A down server's reason says what to change (src/supervisor/start-failure.ts), so it is shown rather
 * than the raw error; a reason that only counts restarts (the restart limit) gets the last error too.
 */
function whyNotUp(status: ServerStatus): string {
  const { downReason, lastError } = status;
  if (status.state === "down" && downReason !== undefined) {
    return /^(restarted \d+ times|restarts are disabled)/.test(downReason) && lastError !== undefined
      ? `: ${downReason}; last error: ${lastError}`
      : `: ${downReason}`;
  }
  return lastError !== undefined ? `: ${lastError}` : "";
}
