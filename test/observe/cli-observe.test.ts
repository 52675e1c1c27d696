/** `mcp-switchboard observe`: the real program serving a config's board, its errors the same as `tools`'. */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { Snapshot } from "../../src/observe/index.js";
import { configFile, echoServer, run } from "../cli/run-cli.js";
import { isAlive, waitFor } from "../helpers/processes.js";

const cli = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "mcp-switchboard-observe-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("mcp-switchboard observe", () => {
  it("a config with errors: the same messages and exit code as `tools`", async () => {
    const missing = join(dir, "missing.json");
    const bad = join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ mcpServers: { echo: { command: "node", args: [echoServer], restart: { maxRestarts: "many" } } } }));
    const broken = join(dir, "broken.json");
    writeFileSync(broken, '{ "mcpServers": { "echo": { "command": "node", } } }');
    for (const path of [missing, bad, broken]) {
      const observed = await run(["observe", path, "--port", "0"]);
      const tools = await run(["tools", "--config", path]);
      expect(observed.code).toBe(1);
      expect(observed.code).toBe(tools.code);
      expect(observed.err).toBe(tools.err);
      expect(observed.err).toMatch(/ConfigError/);
    }
    // --config works as well as the positional path.
    expect((await run(["observe", "--config", bad])).err).toBe((await run(["tools", "--config", bad])).err);
  });

  it("a port in use: exit 1 and a message naming the port; a bad --port is a usage error", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    try {
      const port = (blocker.address() as { port: number }).port;
      const config = configFile({ echo: { command: process.execPath, args: [echoServer] } });
      const result = await run(["observe", config, "--port", String(port)]);
      expect(result.code).toBe(1);
      expect(result.err).toContain(`port ${port} on 127.0.0.1 is in use`);
      const usage = await run(["observe", config, "--port", "http"]);
      expect(usage.code).toBe(2);
      expect(usage.err).toContain("--port");
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("serves the board until SIGTERM, then stops its servers and exits 0", async () => {
    const config = configFile({ echo: { command: process.execPath, args: [echoServer] } });
    const child = spawn(process.execPath, ["--import", "tsx", cli, "observe", config, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      await waitFor(() => /http:\/\/127\.0\.0\.1:\d+\//.test(out), 20_000, 50);
      const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(out)![0];
      expect(out).toContain("Observing 1 server(s) at");
      let snapshot: Snapshot | undefined;
      const poll = setInterval(() => {
        void fetch(`${url}snapshot.json`)
          .then((r) => r.json() as Promise<Snapshot>)
          .then(
            (s) => (snapshot = s),
            () => {},
          );
      }, 100);
      try {
        await waitFor(() => snapshot?.servers[0]?.state === "up", 20_000, 50);
      } finally {
        clearInterval(poll);
      }
      const pid = snapshot!.servers[0].session!.pid!;
      expect(isAlive(pid)).toBe(true);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      await waitFor(() => !isAlive(pid), 5000);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      await exited;
    }
    expect(err).toBe("");
  }, 40_000);
});
