/** Opens the Switchboard a command works on: from --config (default ./mcp.json), started and ready. */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError } from "../jsonrpc/errors.js";
import { loadConfig } from "../switchboard/config.js";
import type { SwitchboardConfig } from "../switchboard/config-types.js";
import { Switchboard } from "../switchboard/switchboard.js";

export async function openBoard(configPath: string | undefined, options: { timeoutMs?: number | undefined } = {}): Promise<Switchboard> {
  const board = new Switchboard(await readBoardConfig(configPath, options));
  await board.start();
  return board;
}

/** The config a command works on, with the same errors for every command (observe shares them with tools). */
export async function readBoardConfig(configPath: string | undefined, options: { timeoutMs?: number | undefined } = {}): Promise<SwitchboardConfig> {
  const path = resolve(configPath ?? "mcp.json");
  if (!existsSync(path)) {
    throw new ConfigError(
      configPath === undefined ? `No mcp.json in ${process.cwd()}: pass --config FILE, or try \`mcp-switchboard demo\`` : `${path} does not exist`,
    );
  }
  const config = await loadConfig(path);
  // --timeout is the command line's word, so it wins over every entry's requestTimeoutMs (which the
  // config always fills in, 60000 by default).
  if (options.timeoutMs !== undefined) for (const entry of Object.values(config.servers)) entry.requestTimeoutMs = options.timeoutMs;
  return config;
}

/** One line per server that is not up, so a command's output says why its tools are missing. */
export function downServers(board: Switchboard): string[] {
  return Object.entries(board.status())
    .filter(([, status]) => status.state !== "up" && status.state !== "disabled")
    .map(([name, status]) => `server "${name}" is ${status.state}${status.lastError ? `: ${status.lastError}` : ""}`);
}
