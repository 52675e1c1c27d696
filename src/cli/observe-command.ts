/**
 * `mcp-switchboard observe [mcp.json] [--port N]`: the board of a config, served as the live observer
 * page until Ctrl-C (SIGINT) or SIGTERM. The page is up before the servers start, so a slow start is
 * watched too; the config's env, header and auth values are handed to the observer as strings to redact.
 */
import { observe } from "../observe/index.js";
import { secretsOf } from "../observe/view.js";
import type { Output } from "./commands.js";
import { boardOf, downServers, readBoardConfig, type BoardFlags } from "./open-board.js";
import { watchStdoutNoise } from "./stdout-noise.js";

export interface ObserveCommandOptions {
  config: string | undefined;
  port: number | undefined;
  host: string | undefined;
  captureToolContent: boolean;
  /** --timeout, --start-timeout and where config warnings go, as for `tools`. */
  flags: BoardFlags;
}

export async function observeCommand(options: ObserveCommandOptions, io: Output): Promise<number> {
  const config = await readBoardConfig(options.config, options.flags);
  const board = await boardOf(config);
  watchStdoutNoise(board);
  const observer = await observe(board, { port: options.port, host: options.host, captureToolContent: options.captureToolContent, redact: secretsOf(config) });
  const stop = untilSignal();
  try {
    io.out(`Observing ${board.serverNames.length} server(s) at ${observer.url} (Ctrl-C to stop)`);
    await Promise.race([board.start(), stop.signalled]);
    for (const line of downServers(board)) io.err(line);
    await stop.signalled;
    return 0;
  } finally {
    stop.dispose();
    await observer.close();
    await board.stop();
  }
}

function untilSignal(): { signalled: Promise<void>; dispose(): void } {
  let done!: () => void;
  const signalled = new Promise<void>((resolve) => (done = resolve));
  const handler = () => done();
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
  return {
    signalled,
    dispose: () => {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}
