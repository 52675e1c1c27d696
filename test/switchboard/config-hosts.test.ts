/**
 * The config files people already have are read as they are. VS Code's mcp.json (`servers`,
 * `inputs`, `${input:id}`) and Claude Desktop's file (`mcpServers` beside the host's own settings),
 * from fixture files copied as users copy them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/jsonrpc/errors.js";
import { loadConfig, parseConfig } from "../../src/switchboard/config.js";
import { inputVariable, type ConfigInputRequest } from "../../src/switchboard/config-hosts.js";
import { Switchboard } from "../../src/switchboard/switchboard.js";
import { echoServer, node } from "./board-helpers.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-switchboard-hosts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fixture from test/fixtures/hosts, its NODE and ECHO_SERVER placeholders filled in, written to a temp dir. */
function fixture(name: string): string {
  const text = readFileSync(fileURLToPath(new URL(`../fixtures/hosts/${name}`, import.meta.url)), "utf8");
  const path = join(dir, name);
  writeFileSync(path, text.replaceAll('"NODE"', JSON.stringify(node)).replaceAll('"ECHO_SERVER"', JSON.stringify(echoServer)));
  return path;
}

describe("VS Code mcp.json", () => {
  it("reads servers and inputs; ${input:id} comes from the handler, asked once per id", async () => {
    const asked: ConfigInputRequest[] = [];
    const config = await loadConfig(fixture("vscode-mcp.json"), {
      inputs: (input) => {
        asked.push(input);
        return "named-by-input";
      },
    });
    expect(asked).toEqual([{ type: "promptString", id: "server-name", description: "The name the echo server gives itself", password: true }]);
    const entry = config.servers.echo;
    expect(entry?.type === "stdio" && entry.env).toEqual({ ECHO_SERVER_NAME: "named-by-input" });
  });

  it("without a handler, each input comes from MCP_INPUT_<ID>; the server runs with it", async () => {
    expect(inputVariable("server-name")).toBe("MCP_INPUT_SERVER_NAME");
    const board = await Switchboard.fromConfig(fixture("vscode-mcp.json"), { env: { MCP_INPUT_SERVER_NAME: "from-env" } });
    try {
      await board.start();
      expect(board.client("echo")?.serverInfo?.name).toBe("from-env");
    } finally {
      await board.stop();
    }
  });

  it("an answer is taken as text: a ${ in it is not substituted again", async () => {
    const config = await loadConfig(fixture("vscode-mcp.json"), { inputs: () => "${HOME}" });
    const entry = config.servers.echo;
    expect(entry?.type === "stdio" && entry.env.ECHO_SERVER_NAME).toBe("${HOME}");
  });

  it("an input with no value, or one nobody declared, is a ConfigError that says what to do", async () => {
    await expect(loadConfig(fixture("vscode-mcp.json"), { env: {} })).rejects.toThrow(
      'vscode-mcp.json, server "echo": ${input:server-name} has no value: set the environment variable MCP_INPUT_SERVER_NAME, or give loadConfig an inputs handler',
    );
    const undeclared = { inputs: [], servers: { a: { command: "node", env: { T: "${input:token}" } } } };
    expect(() => parseConfig(undeclared, { env: {} })).toThrow(ConfigError);
    expect(() => parseConfig(undeclared, { env: {} })).toThrow(
      'server "a": ${input:token} names no input: declare { "id": "token", "type": "promptString" } in the top-level "inputs"',
    );
    // A disabled server keeps its values as written, so it needs no input.
    expect(parseConfig({ servers: { a: { command: "node", disabled: true, env: { T: "${input:token}" } } } }, { env: {} }).servers.a?.disabled).toBe(true);
  });

  it("checks the inputs themselves like any field", () => {
    expect(() => parseConfig({ inputs: [{ id: "x", type: "command" }], servers: {} })).toThrow(
      'field "inputs[0].type": expected one of "promptString", "pickString", found the string "command"',
    );
    expect(() => parseConfig({ inputs: {}, servers: {} })).toThrow('field "inputs": expected an array of objects, found an object');
    expect(() => parseConfig({ inputs: ["x"], servers: {} })).toThrow('field "inputs[0]": expected an object, found the string "x"');
  });
});

describe("Claude Desktop and Cursor files", () => {
  it("ignores the host's own top-level keys with one warning naming them all", async () => {
    const warnings: string[] = [];
    const path = fixture("claude_desktop_config.json");
    const config = await loadConfig(path, { onWarning: (message) => warnings.push(message) });
    expect(Object.keys(config.servers)).toEqual(["echo"]);
    expect(warnings).toEqual([`${path}: ignoring top-level keys "globalShortcut", "preferences" (another host's settings); only the servers are read`]);
  });

  it("warns through process.emitWarning when no handler is given", async () => {
    const seen: Error[] = [];
    const listener = (warning: Error) => seen.push(warning);
    process.on("warning", listener);
    try {
      parseConfig({ mcpServers: {}, globalShortcut: "x" });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off("warning", listener);
    }
    expect(seen.map((warning) => [warning.name, warning.message])).toEqual([
      ["McpSwitchboardConfigWarning", 'ignoring top-level key "globalShortcut" (another host\'s settings); only the servers are read'],
    ]);
  });

  it("a misspelt known key is still an error, and so is an unknown key with no servers", () => {
    expect(() => parseConfig({ mcpServers: {}, separtor: "." }, { onWarning: () => {} })).toThrow('field "separtor": unknown field; did you mean "separator"?');
    expect(() => parseConfig({ globalShortcut: "x" }, { onWarning: () => {} })).toThrow(ConfigError);
  });
});
