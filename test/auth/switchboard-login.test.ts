/**
 * OAuth in a Switchboard and on the command line: an `oauth` entry in mcp.json; a server that needs
 * authorization is `down` with "authorization required" at once (no restarts); `mcp-switchboard
 * login` authorizes it through the loopback listener into the token file; a restart brings it up;
 * `logout` forgets it. And the config checks of the `oauth` and `auth` fields.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { ConfigError, oauth, parseConfig, Switchboard } from "../../src/index.js";
import { waitFor } from "../helpers/processes.js";
import { closeAfterEach } from "../helpers/close-after-each.js";
import { browse } from "./fixtures/authorization-server.js";
import { startProtectedPair, temporaryDirectories } from "./fixtures/setup.js";

const track = closeAfterEach();
const tempDirectory = temporaryDirectories();

describe("OAuth in a Switchboard and the CLI", () => {
  it("down with 'authorization required' until `login`, then up after a restart; `logout` forgets", async () => {
    const { as, mcp } = await startProtectedPair(track);
    const issuer = as.issuer;
    const directory = await tempDirectory();
    const config = join(directory, "mcp.json");
    await writeFile(config, JSON.stringify({ mcpServers: { docs: { url: mcp.url, oauth: { tokenFile: "./tokens.json", clientName: "login test" } } } }));

    const board = await Switchboard.fromConfig(config);
    track({ close: () => board.stop() });
    const downs: string[] = [];
    board.on("down", (event) => downs.push(event.reason));
    await board.start();
    const status = board.status().docs;
    expect(status.state).toBe("down");
    expect(status.restarts).toBe(0);
    expect(status.downReason).toMatch(/^authorization required: server "docs" \(.+\) needs a person to authorize it; run `mcp-switchboard login docs`$/);
    expect(downs).toEqual([status.downReason]);
    await expect(board.callTool("docs__echo", { text: "x" })).rejects.toThrow(/mcp-switchboard login docs/);

    const out: string[] = [];
    const err: string[] = [];
    const browsing: Promise<unknown>[] = [];
    const io = { out: (line: string) => (out.push(line), line.startsWith("http") && browsing.push(browse(line))), err: (line: string) => void err.push(line) };
    expect(await main(["login", "docs", "--config", config], io)).toBe(0);
    await Promise.all(browsing);
    expect(out[0]).toMatch(/\/auth\?/);
    expect(err.at(-1)).toMatch(new RegExp(`^Authorized "docs" at ${issuer}.*credentials stored in ${join(directory, "tokens.json")}$`));
    const file = JSON.parse(await readFile(join(directory, "tokens.json"), "utf8"));
    expect(Object.keys(file.servers)).toEqual([mcp.resource]);

    board.restart("docs");
    await waitFor(() => board.status().docs.state === "up", 10_000);
    expect((await board.callTool("docs__echo", { text: "after login" })).content).toEqual([{ type: "text", text: "after login" }]);

    expect(await main(["login", "docs", "--config", config], { out: () => {}, err: (line) => void err.push(line) })).toBe(0);
    expect(err.at(-1)).toMatch(/is authorized already/);
    expect(await main(["logout", "docs", "--config", config], { out: () => {}, err: (line) => void err.push(line) })).toBe(0);
    expect(JSON.parse(await readFile(join(directory, "tokens.json"), "utf8")).servers).toEqual({});
  });

  it("login refuses a stdio server and one without an oauth entry, naming it", async () => {
    const config = join(await tempDirectory(), "mcp.json");
    await writeFile(config, JSON.stringify({ mcpServers: { local: { command: "node" }, plain: { url: "https://mcp.example.com/mcp" } } }));
    const err: string[] = [];
    const io = { out: () => {}, err: (line: string) => void err.push(line) };
    expect(await main(["login", "local", "--config", config], io)).toBe(1);
    expect(err.at(-1)).toContain('"local" runs over stdio');
    expect(await main(["login", "plain", "--config", config], io)).toBe(1);
    expect(err.at(-1)).toContain('"plain" has no "oauth" object');
    expect(await main(["login", "plian", "--config", config], io)).toBe(1);
    expect(err.at(-1)).toContain('did you mean "plain"?');
  });
});

describe("the oauth and auth fields of a server entry", () => {
  it("substitutes ${VAR} in oauth strings and keeps the provider given in code", () => {
    const config = parseConfig(
      { mcpServers: { a: { url: "https://a.example/mcp", oauth: { clientId: "${ID}", clientSecret: "${SECRET}", grant: "client_credentials" } } } },
      { env: { ID: "cid", SECRET: "shh" } },
    );
    expect(config.servers.a).toMatchObject({ oauth: { clientId: "cid", clientSecret: "shh", grant: "client_credentials" } });
    const provider = oauth();
    expect(parseConfig({ servers: { b: { url: "https://b.example/mcp", auth: provider } } }).servers.b).toMatchObject({ auth: provider });
  });

  it("names the file, server and field of a wrong oauth entry", () => {
    const error = (input: unknown) => {
      try {
        parseConfig(input, { file: "mcp.json" });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error("no error");
    };
    expect(error({ mcpServers: { a: { url: "https://a.example/mcp", oauth: { clientID: "x" } } } })).toBe(
      'mcp.json, server "a", field "oauth.clientID": unknown field; did you mean "clientId"?',
    );
    expect(error({ mcpServers: { a: { url: "https://a.example/mcp", oauth: { grant: "password" } } } })).toBe(
      'mcp.json, server "a", field "oauth.grant": expected one of "authorization_code", "client_credentials", found the string "password"',
    );
    expect(error({ mcpServers: { a: { command: "node", oauth: {} } } })).toBe(
      'mcp.json, server "a", field "oauth": applies to remote servers (with "url"); this server has "command"',
    );
    expect(error({ mcpServers: { a: { url: "https://a.example/mcp", oauth: {}, auth: { token: "t" } } } })).toBe(
      'mcp.json, server "a", field "oauth": give "oauth" (settings) or "auth" (a provider), not both',
    );
    expect(error({ mcpServers: { a: { url: "https://a.example/mcp", auth: 5 } } })).toBe(
      'mcp.json, server "a", field "auth": expected oauth({...}), { token } or a function returning headers, found 5',
    );
  });
});
