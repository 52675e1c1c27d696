import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { connect } from "../../src/client/connect.js";
import { echo, gatewaysAfterEach } from "./helpers.js";

const cli = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcp-switchboard-serve-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const { sdkClient, track } = gatewaysAfterEach();

function configFile(content: object): string {
  const path = join(dir, `mcp-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe("mcp-switchboard serve", () => {
  it("--stdio: any stdio MCP client (here our own connect()) gets the config's board", async () => {
    const config = configFile({ mcpServers: { echo } });
    const client = track(await connect({ command: process.execPath, args: ["--import", "tsx", cli, "serve", config, "--stdio"] }, { protocol: "legacy" }));
    expect((await client.listTools()).map((t) => t.name)).toContain("echo__add");
    expect((await client.callTool("echo__add", { a: 1, b: 2 })).content).toEqual([{ type: "text", text: "3" }]);
  });

  it("--stdio: our own connect() in its default mode gets the 2026-07-28 era", async () => {
    const config = configFile({ mcpServers: { echo } });
    const client = track(await connect({ command: process.execPath, args: ["--import", "tsx", cli, "serve", config, "--stdio"] }));
    expect(client.protocolVersion).toBe("2026-07-28");
    expect((await client.callTool("echo__add", { a: 2, b: 3 })).content).toEqual([{ type: "text", text: "5" }]);
  });

  it("--stdio: a server's sampling request reaches the client (the command declares the capability upstream)", async () => {
    const config = configFile({ mcpServers: { echo } });
    const client = track(
      await connect(
        { command: process.execPath, args: ["--import", "tsx", cli, "serve", config, "--stdio"] },
        { protocol: "legacy", onSampling: () => ({ role: "assistant", model: "m", content: { type: "text", text: "from the host's model" } }) },
      ),
    );
    expect((await client.callTool("echo__ask_model", { question: "?" })).content).toEqual([{ type: "text", text: "from the host's model" }]);
  });

  it("HTTP with the config's gateway section: keys from the environment, 401 without one, SIGTERM stops it", async () => {
    const config = configFile({ gateway: { port: 0, auth: { keys: { ada: "${ADA_GATEWAY_KEY}" } } }, mcpServers: { echo: { ...echo, shared: true } } });
    const child = spawn(process.execPath, ["--import", "tsx", cli, "serve", config], {
      env: { ...process.env, ADA_GATEWAY_KEY: "s3cret-key" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      let stderr = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
          const found = /at (http:\/\/\S+)/.exec(stderr);
          if (found) resolve(found[1]);
        });
        child.once("exit", () => reject(new Error(`serve exited: ${stderr}`)));
      });
      const anonymous = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: "{}",
      });
      expect(anonymous.status).toBe(401);
      const client = await sdkClient(url, { authorization: "Bearer s3cret-key" });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo__echo");
      await client.close();
      expect(stderr).not.toContain("s3cret-key");
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
