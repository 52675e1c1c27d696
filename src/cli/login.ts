/**
 * `mcp-switchboard login <server>` and `logout <server>`: the OAuth flow for one remote server of the
 * config, with its `oauth` entry and its token file (default ~/.mcp-switchboard/tokens.json), or, when
 * the config has a `fleet` and the entry names no token file, the fleet's token store in Redis: where
 * the fleet's boards look for the credentials (src/switchboard/board-fleet.ts). Login
 * listens for the callback on 127.0.0.1, prints the authorization URL (and opens a browser with
 * --open), and connects once the tokens are stored, so a server that refuses them says so now.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { oauthFromConfig } from "../auth/config.js";
import { defaultTokenFile } from "../auth/file-token-store.js";
import type { OAuthEvent } from "../auth/options.js";
import type { TokenStore } from "../auth/token-store.js";
import { connect } from "../client/connect.js";
import { maskedUrl } from "../fleet/url.js";
import { ConfigError } from "../jsonrpc/errors.js";
import { loadConfig } from "../switchboard/config.js";
import type { RemoteServerEntry } from "../switchboard/config-types.js";
import { closestName } from "../switchboard/config-validate.js";
import type { Output } from "./commands.js";

export interface LoginOptions {
  config: string | undefined;
  /** Open the authorization URL in the default browser. */
  open: boolean;
  /** Forget stored credentials first, so a person authorizes again. */
  force: boolean;
  /** How long to wait for the browser to come back (ms). */
  timeoutMs: number | undefined;
}

export async function loginCommand(name: string | undefined, options: LoginOptions, io: Output): Promise<number> {
  const { entry, tokenFile, store, close } = await remoteEntry(options.config, name, "login");
  try {
    return await login(entry, tokenFile, store, options, io);
  } finally {
    await close();
  }
}

async function login(entry: RemoteServerEntry, tokenFile: string, store: TokenStore | undefined, options: LoginOptions, io: Output): Promise<number> {
  const events: OAuthEvent[] = [];
  const provider = oauthFromConfig(entry.oauth!, {
    ...(store === undefined ? {} : { store }),
    loopback: { port: entry.oauth!.loopbackPort, timeoutMs: options.timeoutMs },
    onAuthorizationUrl: (url) => {
      io.err(`Authorize mcp-switchboard for "${entry.name}" in a browser${options.open ? " (opening it)" : ""}:`);
      io.out(url.href);
      if (options.open) openBrowser(url.href);
    },
    onEvent: (event) => events.push(event),
  });
  const outcome = await provider.authorize(entry.url, { force: options.force });
  // The proof: a connection the server accepts with the stored credentials.
  const client = await connect(
    { url: entry.url, type: entry.type, headers: entry.headers, auth: provider },
    { requestTimeoutMs: entry.requestTimeoutMs, protocol: entry.protocol },
  );
  await client.close();
  const authorized = events.find((event) => event.type === "authorized");
  if (outcome === "not-required") io.err(`"${entry.name}" did not ask for authorization; nothing stored`);
  else if (authorized === undefined) io.err(`"${entry.name}" is authorized already (credentials in ${tokenFile}); --force authorizes again`);
  else
    io.err(`Authorized "${entry.name}" at ${authorized.issuer}${authorized.scope ? ` (scope: ${authorized.scope})` : ""}; credentials stored in ${tokenFile}`);
  return 0;
}

export async function logoutCommand(name: string | undefined, configPath: string | undefined, io: Output): Promise<number> {
  const { entry, tokenFile, store, close } = await remoteEntry(configPath, name, "logout");
  try {
    await oauthFromConfig(entry.oauth!, store === undefined ? {} : { store }).logout(entry.url);
  } finally {
    await close();
  }
  io.err(`Forgot the credentials of "${entry.name}" in ${tokenFile} (revoked at the authorization server where it supports revocation)`);
  return 0;
}

async function remoteEntry(
  configPath: string | undefined,
  name: string | undefined,
  command: string,
): Promise<{ entry: RemoteServerEntry; tokenFile: string; store: TokenStore | undefined; close: () => Promise<void> }> {
  const path = resolve(configPath ?? "mcp.json");
  if (!existsSync(path)) throw new ConfigError(configPath === undefined ? `No mcp.json in ${process.cwd()}: pass --config FILE` : `${path} does not exist`);
  const config = await loadConfig(path);
  const names = Object.keys(config.servers);
  if (name === undefined) throw new ConfigError(`${command} needs a server name (one of: ${names.join(", ")})`, { file: path });
  const entry = config.servers[name];
  if (entry === undefined) {
    const close = closestName(name, names);
    throw new ConfigError(`no server named "${name}"${close !== undefined ? `; did you mean "${close}"?` : ` (servers: ${names.join(", ")})`}`, { file: path });
  }
  if (entry.type === "stdio") throw new ConfigError(`"${name}" runs over stdio; OAuth is for remote servers (with "url")`, { file: path, server: name });
  if (entry.oauth === undefined) {
    throw new ConfigError(
      `"${name}" has no "oauth" object, so a Switchboard would not use stored credentials for it; add "oauth": {} (see README, Authorization)`,
      { file: path, server: name },
    );
  }
  if (config.fleet === undefined || entry.oauth.tokenFile !== undefined) {
    return { entry, tokenFile: entry.oauth.tokenFile ?? defaultTokenFile(), store: undefined, close: async () => {} };
  }
  // Imported only for a config with a fleet: the command line loads no Redis client otherwise.
  const { redisFleet } = await import("../fleet/index.js");
  const fleet = redisFleet({ url: config.fleet.redis }, config.fleet.prefix);
  await fleet.ready();
  const where = `the fleet's Redis ${maskedUrl(config.fleet.redis)} (prefix "${fleet.prefix}")`;
  if (!fleet.healthy) {
    await fleet.close();
    throw new ConfigError(`${command} stores "${name}"'s credentials in ${where}, which does not answer; the fleet's processes read them there`, {
      file: path,
      field: "fleet.redis",
    });
  }
  return { entry, tokenFile: where, store: fleet.tokenStore(), close: () => fleet.close() };
}

function openBrowser(url: string): void {
  const [command, args] =
    process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true });
    child.on("error", () => {}); // no browser: the URL is printed anyway
    child.unref();
  } catch {
    // as above
  }
}
