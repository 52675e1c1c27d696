/**
 * `mcp-switchboard login <server>` and `logout <server>`: the OAuth flow for one remote server of the
 * config, with its `oauth` entry and its token file (default ~/.mcp-switchboard/tokens.json). Login
 * listens for the callback on 127.0.0.1, prints the authorization URL (and opens a browser with
 * --open), and connects once the tokens are stored, so a server that refuses them says so now.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { oauthFromConfig } from "../auth/config.js";
import { defaultTokenFile } from "../auth/file-token-store.js";
import type { OAuthEvent } from "../auth/options.js";
import { connect } from "../client/connect.js";
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
  const { entry, tokenFile } = await remoteEntry(options.config, name, "login");
  const events: OAuthEvent[] = [];
  const provider = oauthFromConfig(entry.oauth!, {
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
  const { entry, tokenFile } = await remoteEntry(configPath, name, "logout");
  await oauthFromConfig(entry.oauth!).logout(entry.url);
  io.err(`Forgot the credentials of "${entry.name}" in ${tokenFile} (revoked at the authorization server where it supports revocation)`);
  return 0;
}

async function remoteEntry(
  configPath: string | undefined,
  name: string | undefined,
  command: string,
): Promise<{ entry: RemoteServerEntry; tokenFile: string }> {
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
  return { entry, tokenFile: entry.oauth.tokenFile ?? defaultTokenFile() };
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
