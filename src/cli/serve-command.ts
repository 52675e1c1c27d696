/**
 * `mcp-switchboard serve [mcp.json] [--port N] [--host A] [--stdio]`: the board of a config served as
 * one MCP server until Ctrl-C (SIGINT) or SIGTERM, or, with --stdio, until the client closes stdin.
 * The config's "gateway" section gives the address, limits and auth; the command line's --port and
 * --host win over it. With --stdio, stdout carries protocol messages only: what we say goes to stderr.
 */
import { PASS_THROUGH_CAPABILITIES, serveBoard, type GatewayAuth, type ServeBoardOptions } from "../gateway/index.js";
import { serveStdio } from "../gateway/stdio.js";
import { ConfigError } from "../jsonrpc/errors.js";
import type { SwitchboardConfig } from "../switchboard/config-types.js";
import type { Output } from "./commands.js";
import { boardOf, downServers, readBoardConfig, type BoardFlags } from "./open-board.js";
import { watchStdoutNoise } from "./stdout-noise.js";

export interface ServeCommandOptions {
  config: string | undefined;
  port: number | undefined;
  host: string | undefined;
  stdio: boolean;
  flags: BoardFlags;
}

export async function serveCommand(options: ServeCommandOptions, io: Output): Promise<number> {
  const config = await readBoardConfig(options.config, options.flags);
  const gatewayOptions: ServeBoardOptions = {
    ...gatewayOptionsOf(config),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
  };
  // A config with a "fleet" makes the board a member, and the gateway a replica that shares its sessions;
  // its servers may ask the downstream client whose call it is (sampling, elicitation, roots).
  const board = await boardOf(config, { client: { capabilities: PASS_THROUGH_CAPABILITIES } });
  watchStdoutNoise(board);
  await board.start();
  for (const line of downServers(board)) io.err(line);
  try {
    if (options.stdio) {
      const gateway = serveStdio(board, { ...gatewayOptions, auth: undefined }, process.stdin, process.stdout);
      await gateway.closed;
      return 0;
    }
    const gateway = await serveBoard(board, gatewayOptions);
    const stop = untilSignal();
    io.err(`Serving ${board.serverNames.length} server(s) as one MCP server at ${gateway.url} (Ctrl-C to stop)`);
    try {
      await stop.signalled;
    } finally {
      stop.dispose();
      await gateway.close();
    }
    return 0;
  } finally {
    await board.stop();
  }
}

/** The config's "gateway" section as `serveBoard()` options ("keys" are by principal there, by key here). */
function gatewayOptionsOf(config: SwitchboardConfig): ServeBoardOptions {
  const { auth, ...rest } = config.gateway ?? {};
  if (auth === undefined) return rest;
  if (auth.keys !== undefined && auth.jwt !== undefined) throw new ConfigError("give one of keys and jwt, not both", { field: "gateway.auth" });
  let gatewayAuth: GatewayAuth;
  if (auth.keys !== undefined) gatewayAuth = { apiKeys: Object.fromEntries(Object.entries(auth.keys).map(([principal, key]) => [key, principal])) };
  else if (auth.jwt?.issuer !== undefined && auth.jwt.audience !== undefined)
    gatewayAuth = { jwt: { ...auth.jwt, issuer: auth.jwt.issuer, audience: auth.jwt.audience } };
  else throw new ConfigError("expected keys ({ principal: key }) or jwt ({ issuer, audience })", { field: "gateway.auth" });
  return { ...rest, auth: gatewayAuth };
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
