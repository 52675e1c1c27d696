#!/usr/bin/env node
/**
 * `mcp-switchboard`: the servers of an mcp.json from the command line.
 *   tools              list every tool, namespaced
 *   call TOOL [JSON]   call one tool and print its result
 *   bench TOOL [JSON]  call it many times and print req/s and a latency histogram
 *   resources, read URI, prompts, prompt NAME [JSON]: what the servers offer besides tools
 *   demo               all of the above against a bundled server, no configuration needed
 *   login SERVER       authorize a remote server (OAuth) and store its tokens; logout SERVER forgets them
 *   observe [mcp.json] serve the live observer page of the config's board on 127.0.0.1
 *   serve [mcp.json]   serve the config's board as one MCP server (Streamable HTTP, or --stdio)
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { McpError } from "../jsonrpc/errors.js";
import { Switchboard } from "../switchboard/switchboard.js";
import { VERSION } from "../util/version.js";
import { benchCommand } from "./bench-command.js";
import { promptCommand, promptsCommand, readCommand, resourcesCommand } from "./catalog-commands.js";
import { callCommand, toolsCommand, type Output } from "./commands.js";
import { loginCommand, logoutCommand } from "./login.js";
import { observeCommand } from "./observe-command.js";
import { serveCommand } from "./serve-command.js";
import { downServers, openBoard, type BoardFlags } from "./open-board.js";
import { nameAndArgs, positiveInt, promptArgs, UsageError } from "./usage.js";

const USAGE = `Usage: mcp-switchboard <command> [options]

Commands:
  tools                    list the tools of every server, namespaced (server__tool)
  call <tool> [json-args]  call a tool, e.g. call math__add '{"a":1,"b":2}'
  bench <tool> [json-args] call a tool --requests times, --concurrency at once; print req/s and a
                           latency histogram (a progress bar while it runs, on a terminal)
  resources                list the resources and resource templates of every server
  read <uri>               read a resource (from the server that lists it, or --server)
  prompts                  list the prompts of every server, namespaced (server__prompt)
  prompt <name> [json-args] get a prompt, e.g. prompt demo__greet '{"name":"Ada"}'
  demo                     start a bundled demo server and show tools, a call with progress, a bench,
                           its resources and a prompt
  login <server>           authorize a remote server with OAuth (its "oauth" entry) and store the tokens
  logout <server>          forget (and revoke) a server's stored tokens
  observe [mcp.json]       serve a live page of the servers (state, restarts, calls, latency) on
                           127.0.0.1 until Ctrl-C
  serve [mcp.json]         serve the servers as one MCP server (Streamable HTTP on 127.0.0.1, path /mcp;
                           the config's "gateway" section) until Ctrl-C, or over stdio with --stdio

Options:
  -c, --config <file>      the config (default ./mcp.json; mcpServers format)
      --json               print JSON instead of text
      --timeout <ms>       deadline per call (default: each server's requestTimeoutMs, 60000)
      --start-timeout <ms> deadline for each server to start: spawn or connect, and the handshake
                           (default: each server's startTimeoutMs, 30000)
      --allow-down         exit 0 even when a server is not up (scripts that take partial results)
  -n, --requests <n>       bench: how many calls (default 1000)
      --concurrency <n>    bench: calls at once (default 32)
      --server <name>      read: the server to read from, when more than one offers the URI
      --open               login: open the authorization URL in the default browser
      --force              login: authorize again even if tokens are stored
      --port <n>           observe: the port (default 7331; 0 picks a free one); serve: (default 0)
      --host <address>     observe, serve: the address to bind (default 127.0.0.1; others warn)
      --stdio              serve: over stdin/stdout instead of HTTP
      --capture-tool-content  observe: show call arguments and agent tool content
  -h, --help               this text
  -v, --version            the version

Exit codes:
  0  success, and every enabled server is up
  1  a failed call, a tool error, a bench with failures, an unknown resource or prompt, a bad config
  2  a wrong command line
  3  the command ran, but a server is not up (its tools are missing); 0 with --allow-down
`;

/** The exit code of a command that ran while a server was not up (see USAGE). */
const SERVER_NOT_UP = 3;

export async function main(argv: string[], io: Output): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: "string", short: "c" },
        json: { type: "boolean", default: false },
        timeout: { type: "string" },
        "start-timeout": { type: "string" },
        "allow-down": { type: "boolean", default: false },
        requests: { type: "string", short: "n" },
        concurrency: { type: "string" },
        server: { type: "string" },
        open: { type: "boolean", default: false },
        force: { type: "boolean", default: false },
        port: { type: "string" },
        host: { type: "string" },
        "capture-tool-content": { type: "boolean", default: false },
        stdio: { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
    });
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.version) {
    io.out(VERSION);
    return 0;
  }
  if (values.help || command === undefined) {
    if (command === undefined && !values.help) io.err(USAGE);
    else io.out(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  try {
    const timeoutMs = positiveInt(values.timeout, "--timeout");
    const requests = positiveInt(values.requests, "--requests") ?? 1000;
    const concurrency = positiveInt(values.concurrency, "--concurrency") ?? 32;
    const json = values.json;
    const flags = { timeoutMs, startTimeoutMs: positiveInt(values["start-timeout"], "--start-timeout"), allowDown: values["allow-down"] };
    const onBoard = (run: (board: Switchboard) => Promise<number>, onlyFor?: string) => withBoard(values.config, { ...flags, onlyFor }, io, run);
    switch (command) {
      case "tools":
        return await onBoard((board) => toolsCommand(board, io, values.json));
      case "call": {
        const [tool, args] = nameAndArgs(rest, "call", "tool", "tools");
        return await onBoard((board) => callCommand(board, io, tool, args, values.json), tool);
      }
      case "bench": {
        const [tool, args] = nameAndArgs(rest, "bench", "tool", "tools");
        return await onBoard((board) => benchCommand(board, io, tool, args, { requests, concurrency, json }), tool);
      }
      case "resources":
        return await onBoard((board) => resourcesCommand(board, io, json));
      case "read": {
        const [uri] = rest;
        if (uri === undefined) throw new UsageError("read needs a resource URI; see `mcp-switchboard resources`");
        return await onBoard((board) => readCommand(board, io, uri, values.server, json));
      }
      case "prompts":
        return await onBoard((board) => promptsCommand(board, io, json));
      case "prompt": {
        const [prompt, args] = nameAndArgs(rest, "prompt", "prompt", "prompts");
        return await onBoard((board) => promptCommand(board, io, prompt, promptArgs(prompt, args), json));
      }
      case "demo":
        return await demo(io, requests, concurrency);
      case "login":
        return await loginCommand(rest[0], { config: values.config, open: values.open, force: values.force, timeoutMs }, io);
      case "logout":
        return await logoutCommand(rest[0], values.config, io);
      case "observe": {
        const port = values.port === "0" ? 0 : positiveInt(values.port, "--port");
        const config = rest[0] ?? values.config;
        const boardFlags = { timeoutMs, startTimeoutMs: flags.startTimeoutMs, onWarning: (message: string) => io.err(`warning: ${message}`) };
        return await observeCommand({ config, port, host: values.host, captureToolContent: values["capture-tool-content"], flags: boardFlags }, io);
      }
      case "serve": {
        const port = values.port === "0" ? 0 : positiveInt(values.port, "--port");
        const boardFlags = { timeoutMs, startTimeoutMs: flags.startTimeoutMs, onWarning: (message: string) => io.err(`warning: ${message}`) };
        return await serveCommand({ config: rest[0] ?? values.config, port, host: values.host, stdio: values.stdio, flags: boardFlags }, io);
      }
      default:
        io.err(`Unknown command "${command}".\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n\nRun \`mcp-switchboard --help\` for the commands and options.`);
      return 2;
    }
    io.err(error instanceof McpError ? `${error.name}: ${error.message}` : String((error as Error)?.stack ?? error));
    return 1;
  }
}

/**
 * Opens the board, runs the command, and turns "a server is not up" into exit code 3 (unless
 * --allow-down): a script must tell a full answer from a partial one. The command's own failure (1)
 * wins, as it says more.
 */
async function withBoard(
  config: string | undefined,
  flags: BoardFlags & { allowDown: boolean },
  io: Output,
  run: (board: Switchboard) => Promise<number>,
): Promise<number> {
  const board = await openBoard(config, { ...flags, onWarning: (message) => io.err(`warning: ${message}`) });
  try {
    const down = downServers(board);
    for (const line of down) io.err(line);
    const code = await run(board);
    return code === 0 && down.length > 0 && !flags.allowDown ? SERVER_NOT_UP : code;
  } finally {
    await board.stop();
  }
}

async function demo(io: Output, requests: number, concurrency: number): Promise<number> {
  const server = fileURLToPath(new URL(`./demo-server${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));
  // process.execArgv carries a TypeScript loader when this runs from source (tsx), so the server runs too.
  const board = new Switchboard({ servers: { demo: { command: process.execPath, args: [...process.execArgv, server] } } });
  await board.start();
  try {
    io.out("$ mcp-switchboard tools");
    await toolsCommand(board, io, false);
    io.out(`\n$ mcp-switchboard call demo__progress '{"steps":3}'`);
    await callCommand(board, io, "demo__progress", { steps: 3 }, false);
    io.out(`\n$ mcp-switchboard call demo__add '{"a":2,"b":40}'`);
    await callCommand(board, io, "demo__add", { a: 2, b: 40 }, false);
    io.out(`\n$ mcp-switchboard bench demo__echo '{"text":"hi"}' --requests ${requests} --concurrency ${concurrency}`);
    await benchCommand(board, io, "demo__echo", { text: "hi" }, { requests, concurrency, json: false });
    io.out("\n$ mcp-switchboard resources");
    await resourcesCommand(board, io, false);
    io.out("\n$ mcp-switchboard read demo://readme");
    await readCommand(board, io, "demo://readme", undefined, false);
    io.out(`\n$ mcp-switchboard prompt demo__greet '{"name":"Ada"}'`);
    await promptCommand(board, io, "demo__greet", { name: "Ada" }, false);
    io.out(`\nNext: write an mcp.json ({"mcpServers": {"name": {"command": "...", "args": [...]}}}) and run \`mcp-switchboard tools\`.`);
    return 0;
  } finally {
    await board.stop();
  }
}

function isEntryPoint(): boolean {
  try {
    return process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const io: Output = {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
    progress: process.stderr.isTTY ? process.stderr : undefined,
  };
  process.exitCode = await main(process.argv.slice(2), io);
}
