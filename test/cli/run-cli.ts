/** Runs `mcp-switchboard` in this process (main) or as a program, with configs written to a temp dir. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect } from "vitest";
import { main } from "../../src/cli/main.js";
import { liveProcessCount } from "../../src/transports/stdio-reaper.js";

export const echoServer = fileURLToPath(new URL("../../examples/servers/echo-server.mjs", import.meta.url));
export const demoServer = fileURLToPath(new URL("../../src/cli/demo-server.ts", import.meta.url));
const cli = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));

/** An mcp.json with these servers, in a directory removed after the file's tests. */
export function configFile(servers: Record<string, { command: string; args: string[] }>): string {
  const dir = mkdtempSync(join(tmpdir(), "mcp-switchboard-cli-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "mcp.json");
  writeFileSync(path, JSON.stringify({ mcpServers: servers }));
  return path;
}

/** The bundled demo server (TypeScript source, so through tsx). */
export const demoEntry = () => ({ command: process.execPath, args: ["--import", "tsx", demoServer] });

export interface Ran {
  code: number;
  out: string;
  err: string;
}

/** main() in this process; `progress` stands in for a terminal on stderr. No server process may outlive it. */
export async function run(argv: string[], progress?: NodeJS.WritableStream): Promise<Ran> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), progress });
  expect(liveProcessCount()).toBe(0);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

/** The real program, stdout and stderr piped (so neither is a TTY). */
export function exec(...args: string[]): Ran {
  const child = spawnSync(process.execPath, ["--import", "tsx", cli, ...args], { encoding: "utf8", cwd: root, timeout: 25_000 });
  return { code: child.status ?? -1, out: child.stdout, err: child.stderr };
}
