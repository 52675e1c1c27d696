/**
 * Config fails per server (src/switchboard/config.ts parseServerOrDown): an unset `${VAR}` in one
 * server's env, args, headers or url leaves that server down with a reason naming the variable and the
 * file, and the other servers start; `strictEnv: true` (the file's field or loadConfig's option) makes
 * it fatal. The CLI then exits 3 naming the server and the variable, or 0 with --allow-down.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { ConfigError, loadConfig, ServerUnavailableError, Switchboard } from "../../src/index.js";
import { run } from "../cli/run-cli.js";
import { echoServer, node } from "./board-helpers.js";

const dir = mkdtempSync(join(tmpdir(), "mcp-switchboard-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const UNSET = "MCP_SWITCHBOARD_TEST_UNSET_VARIABLE";
delete process.env[UNSET];

function file(content: object, name: string): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

const servers = {
  needsToken: { command: node, args: [echoServer], env: { TOKEN: `\${${UNSET}}` }, restart: { maxRestarts: 0 } },
  healthy: { command: node, args: [echoServer], restart: { maxRestarts: 0 } },
};

describe("an unset variable fails only its server", () => {
  it("in env, args, headers or url: that server is down naming the variable and the file; the other starts", async () => {
    const path = file({ mcpServers: servers }, "one.json");
    const config = await loadConfig(path);
    expect(config.servers.healthy.configError).toBeUndefined();
    const error = config.servers.needsToken.configError!;
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(new RegExp(`field "env.TOKEN": environment variable ${UNSET} is not set`));
    // Kept as written: the value is never half-substituted.
    expect(config.servers.needsToken).toMatchObject({ disabled: false, env: { TOKEN: `\${${UNSET}}` } });

    const b = new Switchboard(config);
    onTestFinished(() => b.stop());
    await b.start();
    expect(b.status().healthy.state).toBe("up");
    expect(b.status().needsToken).toMatchObject({ state: "down", downReason: expect.stringContaining(UNSET) });
    expect((await b.callTool("healthy__echo", { text: "hi" })).content).toEqual([{ type: "text", text: "hi" }]);
    const unavailable = await b.callTool("needsToken__echo", { text: "hi" }).catch((e: unknown) => e);
    expect(unavailable).toBeInstanceOf(ServerUnavailableError);
    expect((unavailable as Error).message).toMatch(new RegExp(`server "needsToken" is down: .*environment variable ${UNSET} is not set`));

    for (const [where, entry] of [
      ["args[0]", { command: node, args: [`\${${UNSET}}`] }],
      ["headers.authorization", { url: "http://127.0.0.1:9/mcp", headers: { authorization: `Bearer \${${UNSET}}` } }],
      ["url", { url: `http://\${${UNSET}}/mcp` }],
    ] as const) {
      const parsed = await loadConfig({ mcpServers: { broken: entry, fine: servers.healthy } } as never);
      expect(parsed.servers.broken.configError?.message).toContain(`field "${where}": environment variable ${UNSET} is not set`);
      expect(parsed.servers.fine.configError).toBeUndefined();
    }
  });

  it("strictEnv (the file's field, or loadConfig's option) makes it fatal", async () => {
    await expect(loadConfig(file({ strictEnv: true, mcpServers: servers }, "strict.json"))).rejects.toThrow(
      new RegExp(`server "needsToken", field "env.TOKEN": environment variable ${UNSET} is not set`),
    );
    await expect(loadConfig({ mcpServers: servers }, { strictEnv: true })).rejects.toThrow(ConfigError);
    // Other mistakes stay fatal without it.
    await expect(loadConfig({ mcpServers: { bad: { command: node, restart: { maxRestarts: "x" } } } } as never)).rejects.toThrow(ConfigError);
  });

  it("the CLI exits 3 naming the server and the variable, or 0 with --allow-down and the healthy server's tools", async () => {
    const path = file({ mcpServers: servers }, "cli.json");
    const result = await run(["tools", "-c", path]);
    expect(result.code).toBe(3);
    expect(result.err).toMatch(new RegExp(`server "needsToken" is down: .*environment variable ${UNSET} is not set`));
    const allowed = await run(["tools", "--allow-down", "-c", path]);
    expect(allowed.code).toBe(0);
    expect(allowed.out).toMatch(/^healthy__echo/m);
    expect((await run(["tools", "-c", file({ strictEnv: true, mcpServers: servers }, "cli-strict.json")])).code).toBe(1);
  });
});
